/* Hand-building tf.train.Example bytes for tests: every encoding choice
 * (packed or not, key/value order, duplicates, stray fields) is explicit. */
#ifndef FEATC_TEST_WIRE_H
#define FEATC_TEST_WIRE_H

#include <stdint.h>
#include <string.h>

typedef struct wbuf {
    unsigned char b[1 << 16];
    size_t n;
} wbuf;

static inline void w_byte(wbuf *w, unsigned v)
{
    if (w->n < sizeof w->b)
        w->b[w->n++] = (unsigned char)v;
}

static inline void w_mem(wbuf *w, const void *p, size_t n)
{
    if (n > 0 && w->n + n <= sizeof w->b) {
        memcpy(w->b + w->n, p, n);
        w->n += n;
    }
}

static inline void w_varint(wbuf *w, uint64_t v)
{
    while (v >= 0x80) {
        w_byte(w, (unsigned)(v & 0x7F) | 0x80u);
        v >>= 7;
    }
    w_byte(w, (unsigned)v);
}

/* tag + length + bytes */
static inline void w_len(wbuf *w, unsigned tag, const void *p, size_t n)
{
    w_byte(w, tag);
    w_varint(w, n);
    w_mem(w, p, n);
}

static inline void w_float(wbuf *w, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    w_byte(w, u & 0xFF);
    w_byte(w, (u >> 8) & 0xFF);
    w_byte(w, (u >> 16) & 0xFF);
    w_byte(w, u >> 24);
}

/* Feature bodies (the bytes of a Feature message). */
static inline void f_int64_packed(wbuf *f, const int64_t *v, size_t n)
{
    wbuf run, list;
    size_t i;
    run.n = list.n = 0;
    for (i = 0; i < n; i++)
        w_varint(&run, (uint64_t)v[i]);
    w_len(&list, 0x0A, run.b, run.n);
    w_len(f, 0x1A, list.b, list.n);
}

static inline void f_int64_unpacked(wbuf *f, const int64_t *v, size_t n)
{
    wbuf list;
    size_t i;
    list.n = 0;
    for (i = 0; i < n; i++) {
        w_byte(&list, 0x08);
        w_varint(&list, (uint64_t)v[i]);
    }
    w_len(f, 0x1A, list.b, list.n);
}

static inline void f_float_packed(wbuf *f, const float *v, size_t n)
{
    wbuf run, list;
    size_t i;
    run.n = list.n = 0;
    for (i = 0; i < n; i++)
        w_float(&run, v[i]);
    w_len(&list, 0x0A, run.b, run.n);
    w_len(f, 0x12, list.b, list.n);
}

static inline void f_float_unpacked(wbuf *f, const float *v, size_t n)
{
    wbuf list;
    size_t i;
    list.n = 0;
    for (i = 0; i < n; i++) {
        w_byte(&list, 0x0D);
        w_float(&list, v[i]);
    }
    w_len(f, 0x12, list.b, list.n);
}

static inline void f_bytes(wbuf *f, const char *const *v, size_t n)
{
    wbuf list;
    size_t i;
    list.n = 0;
    for (i = 0; i < n; i++)
        w_len(&list, 0x0A, v[i], strlen(v[i]));
    w_len(f, 0x0A, list.b, list.n);
}

/* A map entry (key then value) inside its own Features block appended to
 * the example: several calls give several Features blocks, which parsers
 * merge.  Use ex_entries for one block with many entries. */
static inline void w_entry(wbuf *feats, const char *key, const wbuf *feature)
{
    wbuf e;
    e.n = 0;
    w_len(&e, 0x0A, key, strlen(key));
    w_len(&e, 0x12, feature->b, feature->n);
    w_len(feats, 0x0A, e.b, e.n);
}

/* A FeatureLists entry key -> a FeatureList of `frames` copies of one
 * Feature body. */
static inline void w_list_entry(wbuf *lists, const char *key, const wbuf *feature, size_t frames)
{
    static wbuf fl;
    size_t t;
    fl.n = 0;
    for (t = 0; t < frames; t++)
        w_len(&fl, 0x0A, feature->b, feature->n);
    w_entry(lists, key, &fl);
}

/* One map entry key -> a packed int64 / packed float / bytes list. */
static inline void w_entry_int64(wbuf *feats, const char *key, const int64_t *v, size_t n)
{
    wbuf f;
    f.n = 0;
    f_int64_packed(&f, v, n);
    w_entry(feats, key, &f);
}

static inline void w_entry_float(wbuf *feats, const char *key, const float *v, size_t n)
{
    wbuf f;
    f.n = 0;
    f_float_packed(&f, v, n);
    w_entry(feats, key, &f);
}

static inline void w_entry_bytes(wbuf *feats, const char *key, const char *const *v, size_t n)
{
    wbuf f;
    f.n = 0;
    f_bytes(&f, v, n);
    w_entry(feats, key, &f);
}

/* Wraps a Features body as Example.features. */
static inline void w_example(wbuf *ex, const wbuf *feats)
{
    w_len(ex, 0x0A, feats->b, feats->n);
}

#endif /* FEATC_TEST_WIRE_H */
