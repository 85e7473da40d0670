/* FarmHash's Fingerprint64 (the "na" 64-bit hash), written from the
 * published algorithm: 0-16, 17-32 and 33-64 byte inputs have their own
 * mixes, longer ones run 64-byte blocks through a 56-byte state and finish
 * on the last 64 bytes.  Checked against TensorFlow's and FarmHash's own
 * test vectors in tests/unit/test_hash.c. */
#include "featc/fc_hash.h"

#include <string.h>

static const uint64_t k0 = UINT64_C(0xc3a5c85c97cb3127);
static const uint64_t k1 = UINT64_C(0xb492b66fbe98f273);
static const uint64_t k2 = UINT64_C(0x9ae16a3b2f90404f);

static uint64_t load64(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

static uint64_t load32(const uint8_t *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
}

static uint64_t rotr(uint64_t v, unsigned s)
{
    return s == 0 ? v : (v >> s) | (v << (64u - s));
}

static uint64_t shift_mix(uint64_t v)
{
    return v ^ (v >> 47);
}

static uint64_t mix16(uint64_t u, uint64_t v, uint64_t mul)
{
    uint64_t a = (u ^ v) * mul, b;
    a ^= a >> 47;
    b = (v ^ a) * mul;
    b ^= b >> 47;
    return b * mul;
}

static uint64_t len0to16(const uint8_t *s, size_t len)
{
    if (len >= 8) {
        uint64_t mul = k2 + (uint64_t)len * 2;
        uint64_t a = load64(s) + k2, b = load64(s + len - 8);
        uint64_t c = rotr(b, 37) * mul + a, d = (rotr(a, 25) + b) * mul;
        return mix16(c, d, mul);
    }
    if (len >= 4) {
        uint64_t mul = k2 + (uint64_t)len * 2;
        uint64_t a = load32(s);
        return mix16((uint64_t)len + (a << 3), load32(s + len - 4), mul);
    }
    if (len > 0) {
        uint32_t y = (uint32_t)s[0] + ((uint32_t)s[len >> 1] << 8);
        uint32_t z = (uint32_t)len + ((uint32_t)s[len - 1] << 2);
        return shift_mix(((uint64_t)y * k2) ^ ((uint64_t)z * k0)) * k2;
    }
    return k2;
}

static uint64_t len17to32(const uint8_t *s, size_t len)
{
    uint64_t mul = k2 + (uint64_t)len * 2;
    uint64_t a = load64(s) * k1, b = load64(s + 8);
    uint64_t c = load64(s + len - 8) * mul, d = load64(s + len - 16) * k2;
    return mix16(rotr(a + b, 43) + rotr(c, 30) + d, a + rotr(b + k2, 18) + c, mul);
}

static uint64_t len33to64(const uint8_t *s, size_t len)
{
    uint64_t mul = k2 + (uint64_t)len * 2;
    uint64_t a = load64(s) * k2, b = load64(s + 8);
    uint64_t c = load64(s + len - 8) * mul, d = load64(s + len - 16) * k2;
    uint64_t y = rotr(a + b, 43) + rotr(c, 30) + d;
    uint64_t z = mix16(y, a + rotr(b + k2, 18) + c, mul);
    uint64_t e = load64(s + 16) * mul, f = load64(s + 24);
    uint64_t g = (y + load64(s + len - 32)) * mul, h = (z + load64(s + len - 24)) * mul;
    return mix16(rotr(e + f, 43) + rotr(g, 30) + h, e + rotr(f + a, 18) + g, mul);
}

typedef struct pair64 {
    uint64_t first, second;
} pair64;

/* 32 bytes at s mixed into the seeds a and b. */
static pair64 weak32(const uint8_t *s, uint64_t a, uint64_t b)
{
    uint64_t w = load64(s), x = load64(s + 8), y = load64(s + 16), z = load64(s + 24), c;
    pair64 r;
    a += w;
    b = rotr(b + a + z, 21);
    c = a;
    a += x;
    a += y;
    b += rotr(a, 44);
    r.first = a + z;
    r.second = b + c;
    return r;
}

uint64_t fc_fingerprint64(const void *data, size_t len)
{
    const uint8_t *s = (const uint8_t *)data;
    const uint64_t seed = 81;
    uint64_t x, y, z, mul, t;
    pair64 v, w;
    const uint8_t *end, *last64;
    if (len <= 16)
        return len0to16(s, len);
    if (len <= 32)
        return len17to32(s, len);
    if (len <= 64)
        return len33to64(s, len);
    x = seed;
    y = seed * k1 + 113;
    z = shift_mix(y * k2 + 113) * k2;
    v.first = v.second = w.first = w.second = 0;
    x = x * k2 + load64(s);
    end = s + ((len - 1) / 64) * 64;
    last64 = s + len - 64;
    do {
        x = rotr(x + y + v.first + load64(s + 8), 37) * k1;
        y = rotr(y + v.second + load64(s + 48), 42) * k1;
        x ^= w.second;
        y += v.first + load64(s + 40);
        z = rotr(z + w.first, 33) * k1;
        v = weak32(s, v.second * k1, x + w.first);
        w = weak32(s + 32, z + w.second, y + load64(s + 16));
        t = z;
        z = x;
        x = t;
        s += 64;
    } while (s != end);
    mul = k1 + ((z & 0xff) << 1);
    s = last64;
    w.first += (uint64_t)((len - 1) & 63);
    v.first += w.first;
    w.first += v.first;
    x = rotr(x + y + v.first + load64(s + 8), 37) * mul;
    y = rotr(y + v.second + load64(s + 48), 42) * mul;
    x ^= w.second * 9;
    y += v.first * 9 + load64(s + 40);
    z = rotr(z + w.first, 33) * mul;
    v = weak32(s, v.second * mul, x + w.first);
    w = weak32(s + 32, z + w.second, y + load64(s + 16));
    t = z;
    z = x;
    x = t;
    return mix16(mix16(v.first, w.first, mul) + shift_mix(y) * k0 + z,
                 mix16(v.second, w.second, mul) + x, mul);
}

int64_t fc_hash_bucket(const void *data, size_t n, uint64_t num_buckets)
{
    if (num_buckets == 0)
        return 0;
    return (int64_t)(fc_fingerprint64(data, n) % num_buckets);
}

int64_t fc_hash_bucket_int64(int64_t v, uint64_t num_buckets)
{
    char text[24];
    size_t n = 0, i;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    char rev[24];
    do {
        rev[n++] = (char)('0' + (int)(u % 10u));
        u /= 10u;
    } while (u != 0);
    i = 0;
    if (v < 0)
        text[i++] = '-';
    while (n > 0)
        text[i++] = rev[--n];
    return fc_hash_bucket(text, i, num_buckets);
}
