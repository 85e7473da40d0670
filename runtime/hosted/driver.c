/* The JSON dump driver and printer: see fc_driver.h. */
#include "featc/fc_driver.h"

#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "featc/fc_input.h"
#include "pow10_table.h"
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
 * is even: strtof rounds ties to even).  Most floats are decided in fixed
 * point first (fixed_shortest); the exact path takes what is too close to
 * call there.  tests/unit/test_text.c compares it with that loop. */

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

static const uint64_t pow10_u64[20] = {1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u,
    10000000u, 100000000u, 1000000000u, UINT64_C(10000000000), UINT64_C(100000000000),
    UINT64_C(1000000000000), UINT64_C(10000000000000), UINT64_C(100000000000000),
    UINT64_C(1000000000000000), UINT64_C(10000000000000000), UINT64_C(100000000000000000),
    UINT64_C(1000000000000000000), UINT64_C(10000000000000000000)};

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

/* "00" to "99": two decimal digits a step, for floats and int64s. */
static const char pairs[] = "00010203040506070809101112131415161718192021222324"
                            "25262728293031323334353637383940414243444546474849"
                            "50515253545556575859606162636465666768697071727374"
                            "75767778798081828384858687888990919293949596979899";

/* %.pg of q x 10^s (q has p digits): trailing zeros dropped, and with
 * point nonzero ".0" after what would print as an integer.  buf has
 * FC_FLOAT_CHARS bytes: the copies below are of fixed sizes, longer than
 * what they keep, and the length counts only what is kept. */
static size_t format_g(char *buf, int neg, uint64_t q, int s, int p, int point)
{
    char d9[24] = "000000000000000000000000"; /* q in 9 digits, then zeros */
    const char *dig = d9 + 9 - p;                 /* its p digits */
    int nd = p, x = s + p - 1;
    size_t n = (size_t)neg; /* buf[0] = '-' below, kept only then */
    uint32_t hi = (uint32_t)q / 10000, lo = (uint32_t)q % 10000; /* q < 10^9: two chains */
    d9[0] = (char)('0' + hi / 10000);
    memcpy(d9 + 1, pairs + 2 * (hi / 100 % 100), 2);
    memcpy(d9 + 3, pairs + 2 * (hi % 100), 2);
    memcpy(d9 + 5, pairs + 2 * (lo / 100), 2);
    memcpy(d9 + 7, pairs + 2 * (lo % 100), 2);
    while (nd > 1 && dig[nd - 1] == '0')
        nd--;
    buf[0] = '-'; /* no branch on the sign: random signs mispredict it */
    if (x < -4 || x >= p) { /* d.ddde+XX */
        int ax = x < 0 ? -x : x;
        buf[n] = dig[0];
        buf[n + 1] = '.';
        memcpy(buf + n + 2, dig + 1, 8);
        n += nd > 1 ? (size_t)nd + 1 : 1;
        buf[n++] = 'e';
        buf[n++] = x < 0 ? '-' : '+';
        memcpy(buf + n, pairs + 2 * ax, 2); /* |x| <= 45 */
        n += 2;
    } else if (x >= 0) { /* ddd.ddd: x + 1 digits before the point */
        memcpy(buf + n, dig, 9);
        n += (size_t)x + 1;
        if (nd > x + 1) {
            buf[n] = '.';
            memcpy(buf + n + 1, dig + x + 1, 8);
            n += (size_t)(nd - x);
        } else if (point) {
            memcpy(buf + n, ".0", 2);
            n += 2;
        }
    } else { /* 0.000ddd: -x - 1 zeros after the point */
        memcpy(buf + n, "0.0000", 6);
        n += (size_t)(1 - x);
        memcpy(buf + n, dig, 9);
        n += (size_t)nd;
    }
    buf[n] = '\0';
    return n;
}

/* The fast path: the same decisions in fixed point.  v x 10^(8-k), with
 * 10^(8-k) from a table of 64-bit mantissas rounded to nearest
 * (pow10_table.h), held with FIX bits after the point: X, in [1e8, 1e9)
 * (v's nine digits before the point), and the half-gaps to v's
 * neighbours, hi above and lo below.  Each is within 2 units of the exact
 * value (the table's rounding is below 2^-64 of it, and one floor), so a
 * decision that SLACK units cannot change is exact; what is closer (a tie
 * or near-tie in the rounding, a candidate on the interval's end) goes to
 * the exact path.  Whether the interval's ends belong to it is decided
 * only there.  Checked against the printf/strtof loop for every positive
 * float32 (make test-float-exhaustive; the sign only adds '-'). */
#define FIX 29
#define SLACK 8u

/* x (X with FIX bits after the point, X < 10^9) rounded to p digits: 1
 * with them in *d when they lie inside the interval x - lo .. x + hi, 0
 * when outside, -1 when too close to call. */
static int fixed_digits(uint64_t x, uint64_t hi, uint64_t lo, int p, uint64_t *d)
{
    uint32_t xi = (uint32_t)(x >> FIX), unit, di, ri;
    uint64_t u, half, r, dx, dist;
    switch (p) { /* constant divisors: no division instruction */
    case 6: unit = 1000; di = xi / 1000; ri = xi % 1000; break;
    case 7: unit = 100; di = xi / 100; ri = xi % 100; break;
    case 8: unit = 10; di = xi / 10; ri = xi % 10; break;
    default: unit = 1; di = xi; ri = 0; break;
    }
    u = (uint64_t)unit << FIX;
    half = u >> 1;
    r = (uint64_t)ri << FIX | (x & (((uint64_t)1 << FIX) - 1));
    *d = di;
    if (r + SLACK - half <= 2 * SLACK) /* r + SLACK >= half: one compare, unsigned */
        return -1;                      /* a tie or nearly */
    *d += r > half;
    dx = *d * u;
    dist = dx >= x ? dx - x : x - dx;
    if (dist > (dx >= x ? hi : lo) + SLACK)
        return 0; /* does not read back */
    if (dist + SLACK >= (dx >= x ? hi : lo))
        return -1; /* on the interval's end, or nearly */
    return 1;
}

static int fixed_shortest(uint32_t m, int e, uint64_t *q, int *s, int *pp)
{
    int bits = 24, l, k, sh, p, r;
    uint64_t c, x, hi, lo;
    const struct fc_pow10 *t;
    if (m < ((uint32_t)1 << 23)) { /* subnormal */
        uint32_t u = m;
        for (bits = 0; u != 0; u >>= 1)
            bits++;
    }
    /* 2^l <= v < 2^(l+1); k = floor(l log10 2) (78913 / 2^18 is close
     * enough for |l| < 1650), which is floor(log10 v) or one less */
    l = e + bits - 1;
    k = l >= 0 ? (int)(((uint32_t)l * 78913u) >> 18)
               : -(int)(((uint32_t)-l * 78913u + 262143u) >> 18);
    t = &fc_pow10_table[8 - k - FC_POW10_MIN];
    /* X x 2^FIX = m x c x 2^(e + b + FIX): m x c has at most 88 bits, and
     * sh, the bits shifted out, is at least 1 (X x 2^FIX < 2^63 <= c) */
    sh = -(e + t->b + FIX);
    c = t->c;
    {
        uint64_t ph = (uint64_t)m * (c >> 32), pl = (uint64_t)m * (uint32_t)c;
        x = sh >= 32 ? (ph + (pl >> 32)) >> (sh - 32) : (ph << (32 - sh)) + (pl >> sh);
    }
    hi = c >> (sh + 1); /* half of 2^e, scaled alike */
    lo = m == ((uint32_t)1 << 23) && e > -149 ? hi >> 1 : hi; /* a power of two */
    if (x >= (uint64_t)1000000000u << FIX) { /* ten digits: k was one less */
        x /= 10;
        hi /= 10;
        lo /= 10;
        k++;
    }
    if (lo != hi) { /* a power of two: each precision from 6 in turn */
        for (p = 6; (r = fixed_digits(x, hi, lo, p, q)) == 0 && p < 9; p++)
            ;
    } else {
        /* The interval is symmetric, so the digits rounded at p read back
         * exactly when some p-digit decimal lies in the interval (the
         * rounded ones are the closest to v of them): p is 9 less the
         * powers of ten (1000, 100, 10 units of X) that have a multiple
         * in it.  no_t: surely none (its largest multiple below the top,
         * and the next one above it, SLACK off the ends); without
         * branches.  The digits at that p are then checked as above. */
        uint64_t a = x - lo, b = x + hi;
        uint32_t bi = (uint32_t)(b >> FIX); /* b < 2^30 x 2^FIX */
        uint64_t m3 = (uint64_t)(bi / 1000 * 1000) << FIX, u3 = (uint64_t)1000 << FIX;
        uint64_t m2 = (uint64_t)(bi / 100 * 100) << FIX, u2 = (uint64_t)100 << FIX;
        uint64_t m1 = (uint64_t)(bi / 10 * 10) << FIX, u1 = (uint64_t)10 << FIX;
        int no3 = m3 + SLACK < a && b + SLACK < m3 + u3;
        int no2 = no3 & (m2 + SLACK < a && b + SLACK < m2 + u2);
        int no1 = no2 & (m1 + SLACK < a && b + SLACK < m1 + u1);
        p = 6 + no3 + no2 + no1;
        r = fixed_digits(x, hi, lo, p, q);
        if (r != 1)
            return 0; /* not so sure: the exact path decides */
    }
    if (r <= 0)
        return 0; /* too close to call (r = 0 at p = 9: never) */
    *s = k - p + 1;
    if (*q == pow10_u64[p]) { /* 9.99.. rounded up to 10.0.. */
        *q /= 10;
        ++*s;
    }
    *pp = p;
    return 1;
}

static size_t float_chars(char *buf, float v, int point)
{
    uint32_t u, frac;
    int bexp, e, p, s = 0;
    uint64_t m, q = 0;
    memcpy(&u, &v, sizeof u);
    frac = u & 0x7fffffu;
    bexp = (int)((u >> 23) & 0xffu);
    if (bexp == 0xff) {
        const char *t = frac != 0 ? "nan" : (u >> 31) != 0 ? "-inf" : "inf";
        strcpy(buf, t);
        return strlen(t);
    }
    if (bexp == 0 && frac == 0) {
        const char *t = (u >> 31) != 0 ? "-0.0" : "0.0";
        size_t n = strlen(t) - (point ? 0u : 2u);
        memcpy(buf, t, n);
        buf[n] = '\0';
        return n;
    }
    if (bexp == 0) {
        m = frac;
        e = -149;
    } else {
        m = frac | 0x800000u;
        e = bexp - 150;
    }
    if (!fixed_shortest((uint32_t)m, e, &q, &s, &p)) {
        double a = fabs((double)v);
        /* too close to call in fixed point: exactly */
        for (p = 6; p <= 9; p++) {
            round_to_digits(m, e, a, p, &q, &s);
            if (reads_back(q, s, m, e))
                break;
        }
    }
    if (p > 9)
        p = 9; /* never: 9 digits always read back */
    return format_g(buf, (u >> 31) != 0, q, s, p, point);
}

size_t fc_float_shortest(char *buf, float v)
{
    return float_chars(buf, v, 0);
}

size_t fc_float_point_chars(char *buf, float v)
{
    return float_chars(buf, v, 1);
}

/* The number of decimal digits of u (1 for 0).  bits x 1233 / 4096 is a
 * little below bits x log10 2, so n is u's count or one less: one compare
 * with 10^n settles it. */
static int decimal_digits(uint64_t u)
{
    int bits, n;
#if defined(__GNUC__) || defined(__clang__)
    bits = 64 - __builtin_clzll(u | 1);
#else
    uint64_t t = u | 1;
    for (bits = 0; t != 0; t >>= 1)
        bits++;
#endif
    n = (bits * 1233) >> 12; /* at most 19 */
    return n + ((u | 1) >= pow10_u64[n]);
}

size_t fc_int64_chars(char *buf, int64_t v)
{
    /* the length first, then the digits in place from the end: no copy
     * after them (a copy of what was just stored, piece by piece, waits
     * for the stores) */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    size_t n = (size_t)(v < 0) + (size_t)decimal_digits(u);
    char *d = buf + n;
    buf[0] = '-'; /* overwritten by the first digit when v >= 0 */
    while (u >= 100) { /* two digits a step */
        size_t r = (size_t)(u % 100);
        u /= 100;
        d -= 2;
        memcpy(d, pairs + 2 * r, 2);
    }
    if (u >= 10)
        memcpy(d - 2, pairs + 2 * u, 2);
    else
        d[-1] = (char)('0' + (int)u);
    return n;
}

size_t fc_json_float_chars(char *buf, float v)
{
    size_t n;
    if (v == 0 && signbit(v)) {
        memcpy(buf, "-0.0", 5); /* "-0" reads back as the integer 0 */
        return 4;
    }
    n = fc_float_shortest(buf, v);
    if (isnan(v) || isinf(v)) { /* a string: JSON has no such numbers */
        memmove(buf + 1, buf, n);
        buf[0] = '"';
        buf[n + 1] = '"';
        buf[n + 2] = '\0';
        return n + 2;
    }
    return n;
}

void fc_json_float(FILE *f, float v)
{
    char buf[FC_FLOAT_CHARS + 2];
    fwrite(buf, 1, fc_json_float_chars(buf, v), f);
}

/* JSON's escapes, one class per byte: 0 as it is, 1 a two-character
 * escape, 2 a \u escape (or, above 0x7f, a UTF-8 sequence when utf8). */
static const unsigned char json_class[256] = {
    2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 2, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2,
    2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2};

size_t fc_json_escape(char *out, size_t room, const void *data, size_t n, size_t *used, int utf8)
{
    static const char hex[] = "0123456789abcdef";
    const uint8_t *p = (const uint8_t *)data;
    size_t i = 0, o = 0, u;
    while (i < n && o + 6 <= room) { /* the longest escape is 6 characters */
        uint8_t c = p[i];
        if (json_class[c] == 0) {
            /* a run of bytes as they are */
            size_t j = i + 1, end = n - i < room - o ? n : i + (room - o);
            while (j < end && json_class[p[j]] == 0)
                j++;
            memcpy(out + o, p + i, j - i);
            o += j - i;
            i = j;
            continue;
        }
        if (json_class[c] == 1) {
            out[o++] = '\\';
            out[o++] = c == '"' ? '"' : c == '\\' ? '\\' : c == '\n' ? 'n' : c == '\r' ? 'r'
                     : c == '\t' ? 't' : c == '\b' ? 'b' : 'f';
            i++;
            continue;
        }
        if (utf8 && c >= 0x80 && (u = fc_utf8_seq(p + i, n - i)) > 1) {
            memcpy(out + o, p + i, u);
            o += u;
            i += u;
            continue;
        }
        /* a control, or a byte as U+00XX; or, in text, a byte that is not
         * UTF-8 as a lone low surrogate, as Python's surrogateescape (PEP
         * 383) reads it, so that s.encode("utf-8", "surrogateescape") gives
         * the bytes back */
        memcpy(out + o, utf8 && c >= 0x80 ? "\\udc" : "\\u00", 4);
        out[o + 4] = hex[c >> 4];
        out[o + 5] = hex[c & 15];
        o += 6;
        i++;
    }
    *used = i;
    return o;
}

void fc_json_string(FILE *f, const void *data, size_t n, int utf8)
{
    const uint8_t *p = (const uint8_t *)data;
    char out[512]; /* written in chunks: one stdio call per 500 bytes or so */
    size_t o = 1, used;
    out[0] = '"';
    for (;;) {
        o += fc_json_escape(out + o, sizeof out - 1 - o, p, n, &used, utf8);
        if (used == n)
            break; /* (p may be NULL when n is 0) */
        p += used;
        n -= used;
        fwrite(out, 1, o, f);
        o = 0;
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
        char buf[FC_INT64_CHARS];
        memcpy(&v, base + i * sizeof v, sizeof v);
        fwrite(buf, 1, fc_int64_chars(buf, v), f);
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
