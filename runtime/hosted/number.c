/* Numbers as text without printf: float32 as the shortest %g that reads
 * back, int64 as %lld prints it (fc_number.h). */
#include "featc/fc_number.h"

#include <math.h>
#include <string.h>

#include "pow10_table.h"

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
