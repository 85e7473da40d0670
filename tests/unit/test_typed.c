/* Typed tensors (`as`, docs/spec-language.md) through the code featc
 * generates for tests/specs/typed.feat: narrowing with its range checks,
 * float16 against a reference that shares nothing with the runtime's bit
 * arithmetic (the nearest of all 63,488 finite halves, ties to even), and
 * decode_raw's little-endian elements, lengths and TensorFlow's texts; in
 * the struct, in batches, in a SequenceExample's context and its feature
 * lists. */
/* test-specs: tests/specs/typed.feat */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "typed.h"
#include "harness.h"
#include "wire.h"

static fc_error err;
static ty_e msg;

/* ---- float16 by search: the finite halves in order of value */

static double half_value(unsigned h)
{
    unsigned e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    double v = e == 0 ? ldexp((double)m, -24) : ldexp(1024.0 + m, (int)e - 25);
    return (h & 0x8000u) ? -v : v;
}

static double halves[0x7c00]; /* 0x0000 .. 0x7bff: 0 .. 65504 */

/* The half nearest x (ties to the even one), -1 when x rounds past 65504
 * (65520 and up: the tie between 65504 and the next step goes up). */
static long half_nearest(float x)
{
    double a = fabs((double)x);
    size_t lo = 0, hi = 0x7bff, best;
    unsigned sign = signbit(x) ? 0x8000u : 0u;
    if (a >= 65520.0)
        return -1;
    while (lo < hi) { /* the first half >= a */
        size_t mid = (lo + hi) / 2;
        if (halves[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    best = lo;
    if (lo > 0) {
        double below = a - halves[lo - 1], above = halves[lo] - a;
        if (below < above || (below == above && ((lo - 1) & 1u) == 0))
            best = lo - 1;
    }
    if (halves[lo] < a) /* past 65504 but below 65520: rounds down to it */
        best = lo;
    return (long)(sign | best);
}

/* Converts n floats at v through a FixedLen float[n] field `as float16`. */
static int to_half(const float *v, size_t n, uint16_t *out)
{
    static const fc_field_as as = {FC_AS_FLOAT16, 4096 * sizeof(float), 0, {0}, 1};
    static const fc_field_extra extra = {0, 0, 0, 0, 0, {0}, 0, 0, NULL, 0, 0, &as};
    static unsigned char m[4096 * 6];
    fc_field_desc f;
    memset(&f, 0, sizeof f);
    f.key = "h";
    f.key_len = 1;
    f.type = FC_TYPE_FLOAT;
    f.kind = FC_KIND_FIXED;
    f.elems = f.max = n;
    f.extra = &extra;
    memcpy(m, v, n * sizeof *v);
    if (fc_ex_as_fields(&f, 1, m, 0, &err) != FC_OK)
        return 0;
    memcpy(out, m + as.offset, n * sizeof *out);
    return 1;
}

static void check_halves(const uint32_t *bits, size_t n)
{
    static float v[4096];
    static uint16_t h[4096];
    size_t k, good = 0;
    for (k = 0; k < n; k++)
        memcpy(&v[k], &bits[k], 4);
    if (to_half(v, n, h)) {
        for (k = 0; k < n; k++) {
            long want = isnan(v[k]) ? (long)(signbit(v[k]) ? 0xfe00 : 0x7e00)
                        : isinf(v[k]) ? (long)(signbit(v[k]) ? 0xfc00 : 0x7c00)
                                      : half_nearest(v[k]);
            CHECK_MSG(want == (long)h[k], "float bits %08lx: half %04x, want %04lx",
                      (unsigned long)bits[k], h[k], (unsigned long)want);
            good += want == (long)h[k];
        }
        CHECK(good == n);
        return;
    }
    /* one of them overflows: each on its own, to find which */
    for (k = 0; k < n; k++) {
        int ok = to_half(&v[k], 1, h);
        long want = isnan(v[k]) || isinf(v[k]) ? 0 : half_nearest(v[k]);
        CHECK_MSG(ok == (want != -1), "float bits %08lx: %s", (unsigned long)bits[k],
                  ok ? "converted, but it rounds past 65504" : err.message);
        if (!ok)
            CHECK_CONTAINS(err.message, "Key: h.  Value at index 0 is out of the range of "
                                        "float16 (its magnitude rounds past 65504)");
    }
}

/* Every sign, exponent and top 10 mantissa bits with the 13 bits that
 * decide the rounding at the values around a tie; every pattern of the
 * exponents whose halves are subnormal near their ties; random ones. */
static void test_float16_rounding(void)
{
    static uint32_t bits[4096];
    static const uint32_t low[] = {0, 1, 0xfff, 0x1000, 0x1001, 0x1fff};
    size_t n = 0, k;
    uint32_t hi, e, s;
    unsigned long long x = 88172645463325252ull;
    for (k = 0; k < 0x7c00; k++)
        halves[k] = half_value((unsigned)k);
    for (hi = 0; hi < 512u * 1024u; hi++)
        for (k = 0; k < sizeof low / sizeof low[0]; k++) {
            bits[n++] = (hi << 13) | low[k];
            if (n == 4096) {
                check_halves(bits, n);
                n = 0;
            }
        }
    for (e = 100; e <= 113; e++) /* subnormal halves: ties at bit 14 - (e - 112) .. */
        for (s = 0; s < 2; s++)
            for (k = 0; k < 4096; k++) {
                uint32_t sh = e < 113 ? 126u - e : 13u, half = 1u << (sh - 1u);
                uint32_t m = ((uint32_t)(k * 2654435761u) & 0x7fffffu & ~((half << 1) - 1u)) |
                             (k % 4 == 0 ? half : k % 4 == 1 ? half - 1u : k % 4 == 2 ? half + 1u : 0u);
                bits[n++] = (s << 31) | (e << 23) | (m & 0x7fffffu);
                if (n == 4096) {
                    check_halves(bits, n);
                    n = 0;
                }
            }
    for (k = 0; k < (1u << 20); k++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        bits[n++] = (uint32_t)x;
        if (n == 4096) {
            check_halves(bits, n);
            n = 0;
        }
    }
    if (n > 0)
        check_halves(bits, n);
}

/* ---- records of typed.feat */

static wbuf rec;

static void entry_raw(wbuf *feats, const char *key, const void *p, size_t n)
{
    wbuf f, list;
    f.n = 0;
    list.n = 0;
    w_len(&list, 0x0A, p, n);
    w_len(&f, 0x0A, list.b, list.n);
    w_entry(feats, key, &f);
}

/* A record with every required feature (img) and the ones given. */
static void record(int64_t u8, const int64_t *i8, size_t ni8, const void *img, size_t img_len,
                   const float *hv, size_t nhv)
{
    wbuf feats;
    feats.n = 0;
    w_entry_int64(&feats, "u8", &u8, 1);
    if (ni8 > 0)
        w_entry_int64(&feats, "i8", i8, ni8);
    entry_raw(&feats, "img", img, img_len);
    if (nhv > 0)
        w_entry_float(&feats, "hv", hv, nhv);
    rec.n = 0;
    w_example(&rec, &feats);
}

static int parse(void)
{
    return ty_e_parse(&msg, rec.b, rec.n, &err);
}

static void test_values(void)
{
    static const int64_t i8[] = {-128, 127, 0};
    static const unsigned char img[6] = {0, 1, 2, 253, 254, 255};
    static const float hv[] = {1.0f, -2.5f, 65504.0f, 1e-8f};
    record(200, i8, 3, img, 6, hv, 4);
    CHECK_MSG(parse() == FC_OK, "%s", err.message);
    /* the record's values stay as parsed, the typed ones beside them */
    CHECK(msg.u8 == 200 && msg.u8_as == 200);
    CHECK(msg.i8_count == 3 && msg.i8_as[0] == -128 && msg.i8_as[1] == 127 && msg.i8_as[2] == 0);
    CHECK(msg.img.size == 6 && msg.img_as[0][0] == 0 && msg.img_as[1][2] == 255 &&
          msg.img_as[1][0] == 253);
    CHECK(msg.hv_as[0] == 0x3c00 && msg.hv_as[1] == 0xc100 && msg.hv_as[2] == 0x7bff &&
          msg.hv_as[3] == 0x0000);
    /* defaults, converted as a record's values are */
    CHECK(msg.i16_as[0] == -32768 && msg.i16_as[1] == 32767);
    CHECK(msg.i32_as == INT32_MIN && msg.h_as[1][1] == 0);
    CHECK(msg.pcm_as[0] == 1 && msg.pcm_as[1] == -1 && msg.pcm_as[2] == -32768);
    CHECK(msg.s8_as[0] == 127 && msg.s8_as[1] == -128);
    CHECK(msg.f16_as[0] == 0x3c00);
    CHECK(msg.f32_as[0] == 1.0f && msg.f32_as[1] == -2.0f && msg.f64_as[0] == 1.0);
    CHECK(msg.l_as[0] == 0 && msg.q_as[0] == 0 && msg.w_as[1] == 0);
}

/* little-endian on every host: the bytes of each element, low first */
static void test_decode_raw_order(void)
{
    wbuf feats;
    static const unsigned char l[16] = {1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xff,
                                        0xff, 0xff, 0xff, 0x7f};
    static const unsigned char q[4] = {0x78, 0x56, 0x34, 0x12}, w[4] = {0xfe, 0xff, 0x34, 0x12};
    static const unsigned char img[6] = {0};
    feats.n = 0;
    entry_raw(&feats, "img", img, 6);
    entry_raw(&feats, "l", l, 16);
    entry_raw(&feats, "q", q, 4);
    entry_raw(&feats, "w", w, 4);
    rec.n = 0;
    w_example(&rec, &feats);
    CHECK_MSG(parse() == FC_OK, "%s", err.message);
    CHECK(msg.l_as[0] == INT64_C(0x0807060504030201) && msg.l_as[1] == INT64_MAX);
    CHECK(msg.q_as[0] == 0x12345678 && msg.w_as[0] == 0xfffe && msg.w_as[1] == 0x1234);
}

static void expect_error(const char *text)
{
    CHECK(parse() == FC_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, text) == 0, "\"%s\", want \"%s\"", err.message, text);
}

static void test_errors(void)
{
    static const unsigned char img[7] = {0};
    static const int64_t big[] = {1, 128};
    static const float huge[] = {0.0f, 65520.0f}, under[] = {65519.99f};
    record(256, NULL, 0, img, 6, NULL, 0);
    expect_error("Key: u8.  Value 256 at index 0 is out of the range of uint8 (0 to 255)");
    record(-1, NULL, 0, img, 6, NULL, 0);
    expect_error("Key: u8.  Value -1 at index 0 is out of the range of uint8 (0 to 255)");
    record(0, big, 2, img, 6, NULL, 0);
    expect_error("Key: i8.  Value 128 at index 1 is out of the range of int8 (-128 to 127)");
    record(0, NULL, 0, img, 6, huge, 2);
    expect_error("Key: hv.  Value at index 1 is out of the range of float16 (its magnitude "
                 "rounds past 65504)");
    record(0, NULL, 0, img, 6, under, 1);
    CHECK_MSG(parse() == FC_OK && msg.hv_as[0] == 0x7bff, "%s", err.message);
    record(0, NULL, 0, img, 7, NULL, 0);
    expect_error("Key: img.  Input to reshape is a tensor with 7 values, but the requested "
                 "shape has 6");
    record(0, NULL, 0, img, 0, NULL, 0);
    expect_error("Key: img.  Input to reshape is a tensor with 0 values, but the requested "
                 "shape has 6");
    {
        wbuf feats;
        feats.n = 0;
        entry_raw(&feats, "img", img, 6);
        entry_raw(&feats, "pcm", img, 5);
        rec.n = 0;
        w_example(&rec, &feats);
        expect_error("Key: pcm.  Input to DecodeRaw has length 5 that is not a multiple of 2, "
                     "the size of int16");
        feats.n = 0;
        entry_raw(&feats, "img", img, 6);
        entry_raw(&feats, "f64", img, 7);
        rec.n = 0;
        w_example(&rec, &feats);
        expect_error("Key: f64.  Input to DecodeRaw has length 7 that is not a multiple of 8, "
                     "the size of double");
    }
}

/* Batches hold the typed values in the column, shaped as the tensor. */
static void test_batch(void)
{
    static unsigned char block[TY_E_BATCH_BYTES(3) + 64];
    static fc_column cols[TY_E_FIELD_COUNT];
    static wbuf recs[3];
    static fc_bytes views[3];
    static ty_e scratch;
    static const int64_t i8[] = {-5, 6};
    unsigned char img[6];
    size_t i, k;
    CHECK(ty_e_batch_bind(cols, 3, FC_BATCH_RAGGED, block, sizeof block) > 0);
    for (i = 0; i < 3; i++) {
        for (k = 0; k < 6; k++)
            img[k] = (unsigned char)(i * 10 + k);
        record((int64_t)i + 250, i8, i, img, 6, NULL, 0);
        recs[i] = rec;
        views[i].data = recs[i].b;
        views[i].size = recs[i].n;
    }
    CHECK_MSG(fc_batch_parse(&ty_e_desc, cols, &scratch, views, 3, &err) == FC_OK, "%s",
              err.message);
    CHECK(cols[TY_E_U8].nvalues == 3 && ((const uint8_t *)cols[TY_E_U8].values)[2] == 252);
    CHECK(cols[TY_E_I8].nvalues == 3 && ((const int8_t *)cols[TY_E_I8].values)[0] == -5 &&
          ((const int8_t *)cols[TY_E_I8].values)[2] == 6 && cols[TY_E_I8].row_splits[3] == 3);
    CHECK(cols[TY_E_IMG].rank == 3 && cols[TY_E_IMG].shape[0] == 3 &&
          cols[TY_E_IMG].shape[1] == 2 && cols[TY_E_IMG].shape[2] == 3);
    CHECK(cols[TY_E_IMG].nvalues == 18 && ((const uint8_t *)cols[TY_E_IMG].values)[17] == 25);
    CHECK(((const int16_t *)cols[TY_E_PCM].values)[4] == -1 && cols[TY_E_PCM].nvalues == 9);
    CHECK(((const double *)cols[TY_E_F64].values)[2] == 1.0);
    /* a record out of range: parse_example's text for it */
    record(300, NULL, 0, img, 6, NULL, 0);
    recs[1] = rec;
    views[1].data = recs[1].b;
    views[1].size = recs[1].n;
    CHECK(fc_batch_parse(&ty_e_desc, cols, &scratch, views, 3, &err) == FC_ERR_PARSE);
    CHECK(err.record == 1);
    CHECK_MSG(strcmp(err.message, "Name: <unknown>, Key: u8, Index: 1.  Value 300 at index 0 "
                                  "is out of the range of uint8 (0 to 255)") == 0,
              "%s", err.message);
}

static void test_context(void)
{
    static ty_s s;
    wbuf ctx, seq, f, list;
    int64_t label = 7;
    ctx.n = 0;
    w_entry_int64(&ctx, "label", &label, 1);
    seq.n = 0;
    w_len(&seq, 0x0A, ctx.b, ctx.n);
    CHECK_MSG(ty_s_parse(&s, seq.b, seq.n, &err) == FC_OK, "%s", err.message);
    CHECK(s.label_as == 7 && s.raw_as[3] == 0);
    label = 1000;
    ctx.n = 0;
    w_entry_int64(&ctx, "label", &label, 1);
    f.n = 0;
    list.n = 0;
    w_len(&list, 0x0A, "abc", 3);
    w_len(&f, 0x0A, list.b, list.n);
    seq.n = 0;
    w_len(&seq, 0x0A, ctx.b, ctx.n);
    CHECK(ty_s_parse(&s, seq.b, seq.n, &err) == FC_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "Context feature: label.  Value 1000 at index 0 is out of "
                                  "the range of uint8 (0 to 255)") == 0,
              "%s", err.message);
    w_entry(&ctx, "raw", &f);
    label = 1;
    seq.n = 0;
    ctx.n = 0;
    w_entry_int64(&ctx, "label", &label, 1);
    w_entry(&ctx, "raw", &f);
    w_len(&seq, 0x0A, ctx.b, ctx.n);
    CHECK(ty_s_parse(&s, seq.b, seq.n, &err) == FC_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "Context feature: raw.  Input to reshape is a tensor with 3 "
                                  "values, but the requested shape has 4") == 0,
              "%s", err.message);
}

/* A SequenceExample's feature lists with `as`: each frame converted, an
 * error naming the list and the frame; in the struct and in a batch. */
static wbuf seq_with(const wbuf *lists)
{
    static const int64_t label = 1;
    wbuf seq, ctx;
    ctx.n = 0;
    w_entry_int64(&ctx, "label", &label, 1);
    seq.n = 0;
    w_len(&seq, 0x0A, ctx.b, ctx.n);
    w_len(&seq, 0x12, lists->b, lists->n);
    return seq;
}

static void list_frames(wbuf *lists, const char *key, const wbuf *frames, size_t n)
{
    wbuf fl;
    size_t t;
    fl.n = 0;
    for (t = 0; t < n; t++)
        w_len(&fl, 0x0A, frames[t].b, frames[t].n);
    w_entry(lists, key, &fl);
}

static void raw_frame(wbuf *f, const void *p, size_t n)
{
    wbuf list;
    list.n = 0;
    w_len(&list, 0x0A, p, n);
    f->n = 0;
    w_len(f, 0x0A, list.b, list.n);
}

static wbuf good_lists(int64_t id1)
{
    static const int64_t tok0[] = {-32768, 5}, tok2[] = {32767};
    static const float emb0[] = {1.0f, -2.5f}, emb1[] = {65504.0f, 0.0f};
    static const unsigned char pix0[4] = {1, 2, 3, 4}, pix1[4] = {250, 251, 252, 253};
    static const unsigned char pcm0[4] = {0x01, 0x00, 0xff, 0xff};
    int64_t ids[2];
    wbuf lists, fr[3];
    ids[0] = 3;
    ids[1] = id1;
    lists.n = 0;
    fr[0].n = fr[1].n = fr[2].n = 0;
    f_int64_packed(&fr[0], &ids[0], 1);
    f_int64_packed(&fr[1], &ids[1], 1);
    list_frames(&lists, "ids", fr, 2);
    fr[0].n = fr[1].n = fr[2].n = 0;
    f_int64_packed(&fr[0], tok0, 2);
    f_int64_packed(&fr[1], tok0, 0);
    f_int64_packed(&fr[2], tok2, 1);
    list_frames(&lists, "tok", fr, 3);
    fr[0].n = fr[1].n = 0;
    f_float_packed(&fr[0], emb0, 2);
    f_float_packed(&fr[1], emb1, 2);
    list_frames(&lists, "emb", fr, 2);
    raw_frame(&fr[0], pix0, 4);
    raw_frame(&fr[1], pix1, 4);
    list_frames(&lists, "pix", fr, 2);
    raw_frame(&fr[0], pcm0, 4);
    list_frames(&lists, "pcm", fr, 1);
    return lists;
}

static void test_lists(void)
{
    static ty_s s;
    static const unsigned char three[3] = {1, 2, 3};
    wbuf lists = good_lists(255), seq = seq_with(&lists), fr[1];
    CHECK_MSG(ty_s_parse(&s, seq.b, seq.n, &err) == FC_OK, "%s", err.message);
    CHECK(s.ids_frames == 2 && s.ids_as[0] == 3 && s.ids_as[1] == 255);
    CHECK(s.tok_frames == 3 && s.tok_count[1] == 0 && s.tok_as[0][0] == -32768 &&
          s.tok_as[0][1] == 5 && s.tok_as[2][0] == 32767);
    CHECK(s.emb_as[0][0] == 0x3c00 && s.emb_as[0][1] == 0xc100 && s.emb_as[1][0] == 0x7bff &&
          s.emb_as[1][1] == 0);
    CHECK(s.pix_frames == 2 && s.pix_as[0][0][0] == 1 && s.pix_as[0][1][1] == 4 &&
          s.pix_as[1][1][0] == 252);
    CHECK(s.pcm_as[0][0] == 1 && s.pcm_as[0][1] == -1);
    /* out of range in frame 1 */
    lists = good_lists(256);
    seq = seq_with(&lists);
    CHECK(ty_s_parse(&s, seq.b, seq.n, &err) == FC_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "Feature list: ids, Index: 1.  Value 256 at index 0 is out "
                                  "of the range of uint8 (0 to 255)") == 0,
              "%s", err.message);
    /* decode_raw's two texts, per frame */
    lists = good_lists(0);
    raw_frame(&fr[0], three, 3);
    list_frames(&lists, "pix", fr, 1); /* a later entry of the key wins */
    seq = seq_with(&lists);
    CHECK(ty_s_parse(&s, seq.b, seq.n, &err) == FC_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "Feature list: pix, Index: 0.  Input to reshape is a tensor "
                                  "with 3 values, but the requested shape has 4") == 0,
              "%s", err.message);
    lists = good_lists(0);
    list_frames(&lists, "pcm", fr, 1);
    seq = seq_with(&lists);
    CHECK(ty_s_parse(&s, seq.b, seq.n, &err) == FC_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "Feature list: pcm, Index: 0.  Input to DecodeRaw has length "
                                  "3 that is not a multiple of 2, the size of int16") == 0,
              "%s", err.message);
}

/* Two records of lists in a batch: the columns hold the typed values,
 * [B, T, ...] for fixed frames, values of VarLen frames flat. */
static void test_list_batch(void)
{
    static unsigned char block[TY_S_BATCH_BYTES(2) + 64];
    static fc_column cols[TY_S_FIELD_COUNT];
    static wbuf recs[2], lists[2];
    static fc_bytes views[2];
    static ty_s scratch;
    size_t i;
    CHECK(ty_s_batch_bind(cols, 2, FC_BATCH_RAGGED, block, sizeof block) > 0);
    for (i = 0; i < 2; i++) {
        lists[i] = good_lists(i == 0 ? 9 : 200);
        recs[i] = seq_with(&lists[i]);
        views[i].data = recs[i].b;
        views[i].size = recs[i].n;
    }
    CHECK_MSG(fc_batch_parse_seq(&ty_s_desc, cols, &scratch, views, 2, &err) == FC_OK, "%s",
              err.message);
    CHECK(cols[TY_S_IDS].rank == 2 && cols[TY_S_IDS].nvalues == 4 &&
          ((const uint8_t *)cols[TY_S_IDS].values)[1] == 9 &&
          ((const uint8_t *)cols[TY_S_IDS].values)[3] == 200);
    CHECK(cols[TY_S_TOK].nvalues == 6 && ((const int16_t *)cols[TY_S_TOK].values)[0] == -32768 &&
          ((const int16_t *)cols[TY_S_TOK].values)[5] == 32767);
    CHECK(cols[TY_S_PIX].rank == 4 && cols[TY_S_PIX].shape[2] == 2 &&
          cols[TY_S_PIX].shape[3] == 2 && cols[TY_S_PIX].nvalues == 16 &&
          ((const uint8_t *)cols[TY_S_PIX].values)[15] == 253);
    CHECK(((const uint16_t *)cols[TY_S_EMB].values)[2] == 0x7bff);
}

/* Records a and b of message e as one batch, into e_cols; checked to
 * parse (the text of a failure in the report). */
static fc_column e_cols[TY_E_FIELD_COUNT];

static void e_batch_of_two(const wbuf *a, const wbuf *b)
{
    static unsigned char block[TY_E_BATCH_BYTES(2) + 64];
    static ty_e scratch;
    fc_bytes views[2];
    CHECK(ty_e_batch_bind(e_cols, 2, FC_BATCH_RAGGED, block, sizeof block) > 0);
    views[0].data = a->b;
    views[0].size = a->n;
    views[1].data = b->b;
    views[1].size = b->n;
    CHECK_MSG(fc_batch_parse(&ty_e_desc, e_cols, &scratch, views, 2, &err) == FC_OK, "%s",
              err.message);
}

/* FixedLenSequence rows with `as`: the rows converted in the struct, an
 * error naming the value's index in the rows' flat values; in a batch,
 * [B, R, 2] padded with the padding value (-7) converted, and float16
 * rows padded with 1.5's bits (0x3e00). */
static void rows_record(const int64_t *rw, size_t nrw, const float *rh, size_t nrh)
{
    static const unsigned char img[6] = {0};
    wbuf feats;
    feats.n = 0;
    entry_raw(&feats, "img", img, 6);
    if (nrw > 0)
        w_entry_int64(&feats, "rw", rw, nrw);
    if (nrh > 0)
        w_entry_float(&feats, "rh", rh, nrh);
    rec.n = 0;
    w_example(&rec, &feats);
}

static void test_rows(void)
{
    static const int64_t rw[] = {-32768, 1, 2, 32767}, bad[] = {0, 1, 2, 32768};
    static const float rh[] = {2.0f, -0.5f, 65504.0f};
    static wbuf recs[2];
    const fc_column *cols = e_cols;
    const int16_t *w;
    const uint16_t *h;
    rows_record(rw, 4, rh, 3);
    CHECK_MSG(parse() == FC_OK, "%s", err.message);
    CHECK(msg.rw_count == 2 && msg.rw_as[0][0] == -32768 && msg.rw_as[0][1] == 1 &&
          msg.rw_as[1][0] == 2 && msg.rw_as[1][1] == 32767);
    CHECK(msg.rh_count == 3 && msg.rh_as[0] == 0x4000 && msg.rh_as[1] == 0xb800 &&
          msg.rh_as[2] == 0x7bff);
    rows_record(bad, 4, NULL, 0);
    expect_error("Key: rw.  Value 32768 at index 3 is out of the range of int16 (-32768 to "
                 "32767)");
    /* a batch: record 0 with two rows and three floats, record 1 with none */
    rows_record(rw, 4, rh, 3);
    recs[0] = rec;
    rows_record(NULL, 0, rh, 1);
    recs[1] = rec;
    e_batch_of_two(&recs[0], &recs[1]);
    w = (const int16_t *)cols[TY_E_RW].values;
    h = (const uint16_t *)cols[TY_E_RH].values;
    CHECK(cols[TY_E_RW].rank == 3 && cols[TY_E_RW].shape[1] == 2 && cols[TY_E_RW].shape[2] == 2 &&
          cols[TY_E_RW].nvalues == 8);
    CHECK(w[0] == -32768 && w[3] == 32767 && w[4] == -7 && w[7] == -7);
    CHECK(cols[TY_E_RH].rank == 2 && cols[TY_E_RH].shape[1] == 3 && cols[TY_E_RH].nvalues == 6);
    CHECK(h[0] == 0x4000 && h[2] == 0x7bff && h[3] == 0x4000 && h[4] == 0x3e00 && h[5] == 0x3e00);
}

/* A RaggedFeature with `as`: its values converted, an error naming the
 * record's key of the values (rgv); a batch's values column typed, the
 * splits as they are. */
static void ragged_record(const int64_t *v, size_t nv, const int64_t *lens, size_t nl,
                          const float *rf, size_t nrf)
{
    static const unsigned char img[6] = {0};
    wbuf feats;
    feats.n = 0;
    entry_raw(&feats, "img", img, 6);
    w_entry_int64(&feats, "rgv", v, nv);
    w_entry_int64(&feats, "rgl", lens, nl);
    if (nrf > 0)
        w_entry_float(&feats, "rf", rf, nrf);
    rec.n = 0;
    w_example(&rec, &feats);
}

static void test_ragged(void)
{
    static const int64_t v[] = {1, -32768, 32767}, bad[] = {1, 2, 40000}, lens[] = {2, 1, 2};
    static const float rf[] = {0.5f, 65504.0f};
    static wbuf recs[2];
    const fc_column *cols = e_cols;
    const int16_t *g;
    const uint16_t *h;
    ragged_record(v, 3, lens, 2, rf, 2);
    CHECK_MSG(parse() == FC_OK, "%s", err.message);
    CHECK(msg.rg_count == 3 && msg.rg_as[0] == 1 && msg.rg_as[1] == -32768 &&
          msg.rg_as[2] == 32767 && msg.rg_value[1] == -32768);
    CHECK(msg.rf_count == 2 && msg.rf_as[0] == 0x3800 && msg.rf_as[1] == 0x7bff);
    ragged_record(bad, 3, lens, 2, NULL, 0);
    expect_error("Key: rgv.  Value 40000 at index 2 is out of the range of int16 (-32768 to "
                 "32767)");
    ragged_record(v, 3, lens, 2, rf, 2);
    recs[0] = rec;
    ragged_record(v + 1, 2, lens + 2, 1, rf, 1);
    recs[1] = rec;
    e_batch_of_two(&recs[0], &recs[1]);
    g = (const int16_t *)cols[TY_E_RG].values;
    h = (const uint16_t *)cols[TY_E_RF].values;
    CHECK(cols[TY_E_RG].nvalues == 5 && g[0] == 1 && g[2] == 32767 && g[3] == -32768 &&
          g[4] == 32767);
    CHECK(cols[TY_E_RG].row_splits[1] == 2 && cols[TY_E_RG].row_splits[2] == 3 &&
          cols[TY_E_RG].part_nsplits[0] == 4 && cols[TY_E_RG].part_splits[0][3] == 5);
    CHECK(cols[TY_E_RF].nvalues == 3 && h[1] == 0x7bff && h[2] == 0x3800);
}

/* SparseFeatures with `as`: the values sorted as TensorFlow sorts them,
 * then converted; the indices as they are; an error names the value key. */
static void test_sparse(void)
{
    static const int64_t spi[] = {5, 1}, sga[] = {3}, sgb[] = {4}, sgv[] = {255}, big[] = {256};
    static const float spv[] = {65504.0f, -0.5f};
    static ty_sx sx;
    wbuf feats;
    feats.n = 0;
    w_entry_int64(&feats, "spi", spi, 2);
    w_entry_float(&feats, "spv", spv, 2);
    w_entry_int64(&feats, "sga", sga, 1);
    w_entry_int64(&feats, "sgb", sgb, 1);
    w_entry_int64(&feats, "sgv", sgv, 1);
    rec.n = 0;
    w_example(&rec, &feats);
    CHECK_MSG(ty_sx_parse(&sx, rec.b, rec.n, &err) == FC_OK, "%s", err.message);
    CHECK(sx.sp_count == 2 && sx.sp_indices[0][0] == 1 && sx.sp_as[0] == 0xb800 &&
          sx.sp_indices[1][0] == 5 && sx.sp_as[1] == 0x7bff);
    CHECK(sx.sg_count == 1 && sx.sg_indices[0][0] == 3 && sx.sg_indices[0][1] == 4 &&
          sx.sg_as[0] == 255);
    feats.n = 0;
    w_entry_int64(&feats, "sga", sga, 1);
    w_entry_int64(&feats, "sgb", sgb, 1);
    w_entry_int64(&feats, "sgv", big, 1);
    rec.n = 0;
    w_example(&rec, &feats);
    CHECK(ty_sx_parse(&sx, rec.b, rec.n, &err) == FC_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "Key: sgv.  Value 256 at index 0 is out of the range of uint8 "
                                  "(0 to 255)") == 0,
              "%s", err.message);
}

/* RaggedFeatures with `as` in a SequenceExample: the context's values and
 * each frame of a list of RaggedFeature frames converted after the frame
 * is built, an error naming the value key (and the frame); a batch's
 * values columns typed. */
static wbuf sr_record(const int64_t *cgv, size_t ncgv, int64_t rlv1)
{
    static const int64_t cgl[] = {2, 1}, rlv0[] = {1, 255}, rll0[] = {1, 1}, rll1[] = {1};
    static const float rh0[] = {0.5f, 65504.0f};
    wbuf ctx, lists, fr[2], seq;
    ctx.n = 0;
    w_entry_int64(&ctx, "cgv", cgv, ncgv);
    w_entry_int64(&ctx, "cgl", cgl, 2);
    lists.n = 0;
    fr[0].n = fr[1].n = 0;
    f_int64_packed(&fr[0], rlv0, 2);
    f_int64_packed(&fr[1], &rlv1, 1);
    list_frames(&lists, "rlv", fr, 2);
    fr[0].n = fr[1].n = 0;
    f_int64_packed(&fr[0], rll0, 2);
    f_int64_packed(&fr[1], rll1, 1);
    list_frames(&lists, "rll", fr, 2);
    fr[0].n = 0;
    f_float_packed(&fr[0], rh0, 2);
    list_frames(&lists, "rh", fr, 1);
    seq.n = 0;
    w_len(&seq, 0x0A, ctx.b, ctx.n);
    w_len(&seq, 0x12, lists.b, lists.n);
    return seq;
}

static void test_seq_ragged(void)
{
    static const int64_t cgv[] = {1, -32768, 32767}, cgv2[] = {-32768, 32767, 0},
                         bad[] = {1, 2, 40000};
    static unsigned char block[TY_SR_BATCH_BYTES(2) + 64];
    static fc_column cols[TY_SR_FIELD_COUNT];
    static wbuf recs[2];
    static ty_sr sr, scratch;
    fc_bytes views[2];
    const uint8_t *u;
    size_t i;
    wbuf seq = sr_record(cgv, 3, 7);
    CHECK_MSG(ty_sr_parse(&sr, seq.b, seq.n, &err) == FC_OK, "%s", err.message);
    CHECK(sr.cg_count == 3 && sr.cg_as[0] == 1 && sr.cg_as[1] == -32768 &&
          sr.cg_as[2] == 32767);
    CHECK(sr.rl_frames == 2 && sr.rl_count[0] == 2 && sr.rl_as[0][0] == 1 &&
          sr.rl_as[0][1] == 255 && sr.rl_count[1] == 1 && sr.rl_as[1][0] == 7);
    CHECK(sr.rh_frames == 1 && sr.rh_count[0] == 2 && sr.rh_as[0][0] == 0x3800 &&
          sr.rh_as[0][1] == 0x7bff);
    seq = sr_record(bad, 3, 7);
    CHECK(ty_sr_parse(&sr, seq.b, seq.n, &err) == FC_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "Context feature: cgv.  Value 40000 at index 2 is out of the "
                                  "range of int16 (-32768 to 32767)") == 0,
              "%s", err.message);
    seq = sr_record(cgv, 3, 256);
    CHECK(ty_sr_parse(&sr, seq.b, seq.n, &err) == FC_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "Feature list: rlv, Index: 1.  Value 256 at index 0 is out of "
                                  "the range of uint8 (0 to 255)") == 0,
              "%s", err.message);
    CHECK(ty_sr_batch_bind(cols, 2, FC_BATCH_RAGGED, block, sizeof block) > 0);
    recs[0] = sr_record(cgv, 3, 7);
    recs[1] = sr_record(cgv2, 3, 200);
    for (i = 0; i < 2; i++) {
        views[i].data = recs[i].b;
        views[i].size = recs[i].n;
    }
    CHECK_MSG(fc_batch_parse_seq(&ty_sr_desc, cols, &scratch, views, 2, &err) == FC_OK, "%s",
              err.message);
    u = (const uint8_t *)cols[TY_SR_RL].values;
    CHECK(cols[TY_SR_RL].nvalues == 6 && u[0] == 1 && u[1] == 255 && u[2] == 7 && u[3] == 1 &&
          u[4] == 255 && u[5] == 200);
    CHECK(cols[TY_SR_CG].nvalues == 6 && ((const int16_t *)cols[TY_SR_CG].values)[3] == -32768 &&
          ((const int16_t *)cols[TY_SR_CG].values)[4] == 32767);
    CHECK(cols[TY_SR_RH].nvalues == 4 && ((const uint16_t *)cols[TY_SR_RH].values)[3] == 0x7bff);
}

/* Hashed features with `as`: the values typed, the bucket ids and hot
 * vectors those of the same record parsed untyped (message hp, list hq);
 * in a batch, the values column typed and the buckets column int64. */
static void hx_record(const int64_t *hv, size_t nhv, const int64_t *hf, const int64_t *hm)
{
    wbuf feats;
    feats.n = 0;
    if (nhv > 0)
        w_entry_int64(&feats, "hv", hv, nhv);
    if (hf != NULL)
        w_entry_int64(&feats, "hf", hf, 1);
    if (hm != NULL)
        w_entry_int64(&feats, "hm", hm, 2);
    rec.n = 0;
    w_example(&rec, &feats);
}

static void test_hashed(void)
{
    static const int64_t hv[] = {-5, 300, 32767}, hf = 200, big = 40000, hm[] = {-128, 127};
    static const int64_t hw0[] = {7, 255}, hw1[] = {0};
    static unsigned char block[TY_HX_BATCH_BYTES(2) + 64];
    static fc_column cols[TY_HX_FIELD_COUNT];
    static ty_hx hx, scratch;
    static ty_hp hp;
    static ty_hs hs;
    static wbuf recs[2];
    wbuf lists, fr[2], seq;
    fc_bytes views[2];
    size_t i;
    hx_record(hv, 3, &hf, hm);
    CHECK_MSG(ty_hx_parse(&hx, rec.b, rec.n, &err) == FC_OK, "%s", err.message);
    CHECK_MSG(ty_hp_parse(&hp, rec.b, rec.n, &err) == FC_OK, "%s", err.message);
    CHECK(hx.hv_count == 3 && hx.hv_as[0] == -5 && hx.hv_as[1] == 300 && hx.hv_as[2] == 32767);
    CHECK(memcmp(hx.hv_bucket, hp.hv_bucket, sizeof hx.hv_bucket) == 0 &&
          hx.hf_bucket == hp.hf_bucket &&
          memcmp(hx.hm_bucket, hp.hm_bucket, sizeof hx.hm_bucket) == 0 &&
          memcmp(hx.hf_hot, hp.hf_hot, sizeof hx.hf_hot) == 0 &&
          memcmp(hx.hm_hot, hp.hm_hot, sizeof hx.hm_hot) == 0);
    CHECK(hx.hf_as == 200 && hx.hm_as[0] == -128 && hx.hm_as[1] == 127);
    hx_record(hv, 1, NULL, NULL); /* hf and hm from their defaults */
    CHECK_MSG(ty_hx_parse(&hx, rec.b, rec.n, &err) == FC_OK, "%s", err.message);
    CHECK_MSG(ty_hp_parse(&hp, rec.b, rec.n, &err) == FC_OK, "%s", err.message);
    CHECK(hx.hf_as == 3 && hx.hf_bucket == hp.hf_bucket && hx.hm_as[0] == 1 &&
          hx.hm_as[1] == -1 && hx.hm_bucket[1] == hp.hm_bucket[1] &&
          hx.hv_bucket[0] == hp.hv_bucket[0]);
    hx_record(&big, 1, &hf, hm);
    CHECK(ty_hx_parse(&hx, rec.b, rec.n, &err) == FC_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "Key: hv.  Value 40000 at index 0 is out of the range of int16 "
                                  "(-32768 to 32767)") == 0,
              "%s", err.message);
    /* a batch */
    CHECK(ty_hx_batch_bind(cols, 2, FC_BATCH_RAGGED, block, sizeof block) > 0);
    hx_record(hv, 3, &hf, hm);
    recs[0] = rec;
    CHECK_MSG(ty_hp_parse(&hp, rec.b, rec.n, &err) == FC_OK, "%s", err.message);
    hx_record(hv + 1, 2, NULL, NULL);
    recs[1] = rec;
    for (i = 0; i < 2; i++) {
        views[i].data = recs[i].b;
        views[i].size = recs[i].n;
    }
    CHECK_MSG(fc_batch_parse(&ty_hx_desc, cols, &scratch, views, 2, &err) == FC_OK, "%s",
              err.message);
    CHECK(cols[TY_HX_HV].nvalues == 5 && ((const int16_t *)cols[TY_HX_HV].values)[1] == 300 &&
          ((const int16_t *)cols[TY_HX_HV].values)[3] == 300 &&
          cols[TY_HX_HV].buckets[0] == hp.hv_bucket[0] &&
          cols[TY_HX_HV].buckets[2] == hp.hv_bucket[2] &&
          cols[TY_HX_HV].buckets[4] == hp.hv_bucket[2]);
    CHECK(((const uint8_t *)cols[TY_HX_HF].values)[0] == 200 &&
          ((const uint8_t *)cols[TY_HX_HF].values)[1] == 3 &&
          cols[TY_HX_HF].buckets[0] == hp.hf_bucket && cols[TY_HX_HF].hot != NULL &&
          memcmp(cols[TY_HX_HF].hot, hp.hf_hot, sizeof hp.hf_hot) == 0);
    CHECK(cols[TY_HX_HM].nvalues == 4 && ((const int8_t *)cols[TY_HX_HM].values)[0] == -128 &&
          ((const int8_t *)cols[TY_HX_HM].values)[3] == -1 &&
          cols[TY_HX_HM].buckets[1] == hp.hm_bucket[1] &&
          memcmp(cols[TY_HX_HM].hot, hp.hm_hot, sizeof hp.hm_hot) == 0);
    /* a feature list: hw typed, its ids hq's (the same values) */
    lists.n = 0;
    fr[0].n = fr[1].n = 0;
    f_int64_packed(&fr[0], hw0, 2);
    f_int64_packed(&fr[1], hw1, 1);
    list_frames(&lists, "hw", fr, 2);
    list_frames(&lists, "hq", fr, 2);
    seq.n = 0;
    w_len(&seq, 0x12, lists.b, lists.n);
    CHECK_MSG(ty_hs_parse(&hs, seq.b, seq.n, &err) == FC_OK, "%s", err.message);
    CHECK(hs.hw_frames == 2 && hs.hw_as[0][0] == 7 && hs.hw_as[0][1] == 255 &&
          hs.hw_as[1][0] == 0 && memcmp(hs.hw_bucket, hs.hq_bucket, sizeof hs.hw_bucket) == 0);
}

/* ------------------------------------------------------------ segments */

/* Example e of messages st and su with n frames (lab given): every kind of
 * typed column a segment copies, values in range. */
static void seg_record(wbuf *seq, unsigned e, size_t n, int64_t lab)
{
    static wbuf ctx, lists, fr[12];
    char id[8];
    const char *idp = id;
    unsigned char raw[4], pix[4];
    float hv[3], emb[2];
    int64_t v[3];
    size_t t, k;
    snprintf(id, sizeof id, "k%u", e);
    ctx.n = lists.n = 0;
    w_entry_bytes(&ctx, "id", &idp, 1);
    w_entry_int64(&ctx, "lab", &lab, 1);
    raw[0] = (unsigned char)e, raw[1] = 0x80, raw[2] = 0xff, raw[3] = (unsigned char)(e * 3);
    if (e % 2 == 1) /* else the default */
        entry_raw(&ctx, "raw", raw, 4);
    for (k = 0; k < e % 4; k++)
        hv[k] = (float)(e * 1000 + k) * 0.37f - 700.0f;
    if (e % 4 > 0)
        w_entry_float(&ctx, "hv", hv, e % 4);
    for (t = 0; t < n; t++) {
        v[0] = (int64_t)(e * 37 + t * 11) % 256 - 128;
        fr[t].n = 0;
        f_int64_packed(&fr[t], v, 1);
    }
    list_frames(&lists, "ids", fr, n);
    for (t = 0; t < n; t++) {
        for (k = 0; k < 3; k++)
            v[k] = (int64_t)((e * 9973 + t * 131 + k * 7919) % 65536);
        fr[t].n = 0;
        f_int64_packed(&fr[t], v, (e + t) % 4);
    }
    list_frames(&lists, "tok", fr, n);
    for (t = 0; t < n; t++) {
        for (k = 0; k < 4; k++)
            pix[k] = (unsigned char)(e * 50 + t * 7 + k);
        raw_frame(&fr[t], pix, 4);
    }
    list_frames(&lists, "pix", fr, n);
    for (t = 0; t < n; t++) {
        emb[0] = (float)t * 0.1f + (float)e;
        emb[1] = -(float)(e * t) * 3.3e-3f;
        fr[t].n = 0;
        f_float_packed(&fr[t], emb, 2);
    }
    list_frames(&lists, "emb", fr, n);
    seq->n = 0;
    w_len(seq, 0x0A, ctx.b, ctx.n);
    w_len(seq, 0x12, lists.b, lists.n);
}

static ty_st_segmenter ST;
static ty_su_segmenter SU;

static int16_t le16(const unsigned char *p)
{
    return (int16_t)(uint16_t)(p[0] | p[1] << 8);
}

/* The batch ST handed out against SU's: each typed column is the untyped
 * one converted (tf.cast, decode_raw), its padding zeros.  Returns the
 * number of non-zero typed values seen. */
static size_t seg_compare(void)
{
    const ty_st_segments *a = &ST.batch;
    const ty_su_segments *b = &SU.batch;
    size_t i, t, k, nonzero = 0;
    CHECK(a->size == b->size);
    for (i = 0; i < a->size && i < b->size; i++) {
        uint16_t h[TY_SU_HV_MAX];
        CHECK(a->key[i].size == b->key[i].size &&
              memcmp(a->key[i].data, b->key[i].data, a->key[i].size) == 0);
        CHECK(a->length[i] == b->length[i] && a->sequence[i] == b->sequence[i]);
        CHECK(a->context.lab[i] == (uint8_t)b->context.lab[i]);
        CHECK(b->context.raw[i].size == 4 && a->context.raw[i][0] == le16(b->context.raw[i].data) &&
              a->context.raw[i][1] == le16(b->context.raw[i].data + 2));
        CHECK(a->context.hv_count[i] == b->context.hv_count[i] &&
              to_half(b->context.hv[i], TY_SU_HV_MAX, h) &&
              memcmp(a->context.hv[i], h, a->context.hv_count[i] * sizeof *h) == 0);
        for (k = a->context.hv_count[i]; k < TY_SU_HV_MAX; k++)
            CHECK(a->context.hv[i][k] == 0);
        nonzero += a->context.lab[i] != 0;
        for (t = 0; t < TY_ST_SEG_NUM_UNROLL; t++) {
            const fc_bytes *px = &b->sequences.pix[i][t];
            CHECK(a->sequences.ids[i][t] == (int8_t)b->sequences.ids[i][t]);
            nonzero += a->sequences.ids[i][t] != 0;
            CHECK(a->sequences.tok_count[i][t] == b->sequences.tok_count[i][t]);
            for (k = 0; k < TY_ST_TOK_MAX; k++)
                CHECK(a->sequences.tok[i][t][k] == (uint16_t)b->sequences.tok[i][t][k]);
            CHECK(px->size == (t < a->length[i] ? 4u : 0u));
            for (k = 0; k < 4; k++)
                CHECK(a->sequences.pix[i][t][k / 2][k % 2] == (px->size == 4 ? px->data[k] : 0));
            CHECK(to_half(b->sequences.emb[i][t], 2, h) &&
                  memcmp(a->sequences.emb[i][t], h, 2 * sizeof *h) == 0);
            nonzero += a->sequences.emb[i][t][0] != 0;
        }
    }
    return nonzero;
}

/* The segment batcher of a message with `as`: its batches hold the typed
 * tensors, from records and from structs (converted at insert); a value
 * out of range is the parse's error and takes no slot. */
static void test_segments(void)
{
    static const size_t frames[] = {5, 1, 8, 12, 3, 4, 9};
    static wbuf seq;
    static ty_st st;
    size_t e, batches = 0, nonzero = 0;
    int a, b;
    CHECK(ty_st_seg_init(&ST, &err) == FC_OK && ty_su_seg_init(&SU, &err) == FC_OK);
    for (e = 0; e < sizeof frames / sizeof frames[0];) {
        char key[8];
        snprintf(key, sizeof key, "k%zu", e);
        seg_record(&seq, (unsigned)e, frames[e], (int64_t)(e * 40));
        if (e % 3 == 2) { /* a struct with its typed tensors wiped: insert makes them */
            CHECK_MSG(ty_st_parse(&st, seq.b, seq.n, &err) == FC_OK, "%s", err.message);
            memset(st.ids_as, 0, sizeof st.ids_as);
            memset(st.pix_as, 0x55, sizeof st.pix_as);
            st.lab_as = 0;
            a = ty_st_seg_insert(&ST, key, strlen(key), &st, FC_SEG_LENGTH_FRAMES, NULL, &err);
        } else {
            a = ty_st_seg_insert_record(&ST, key, strlen(key), seq.b, seq.n, FC_SEG_LENGTH_FRAMES,
                                        NULL, &err);
        }
        CHECK_MSG(a == FC_OK || a == FC_AGAIN, "%s", err.message);
        b = ty_su_seg_insert_record(&SU, key, strlen(key), seq.b, seq.n, FC_SEG_LENGTH_FRAMES,
                                    NULL, &err);
        CHECK(a == b);
        if (a == FC_OK) {
            e++;
            continue;
        }
        if (a != FC_AGAIN)
            return;
        CHECK(ty_st_seg_next(&ST, &err) == FC_OK && ty_su_seg_next(&SU, &err) == FC_OK);
        nonzero += seg_compare();
        batches++;
        CHECK(ty_st_seg_save_h(&ST, &ST.batch.state.h[0][0], &err) == FC_OK &&
              ty_su_seg_save_h(&SU, &SU.batch.state.h[0][0], &err) == FC_OK);
    }
    ty_st_seg_close(&ST);
    ty_su_seg_close(&SU);
    while ((a = ty_st_seg_next(&ST, &err)) == FC_OK) {
        CHECK(ty_su_seg_next(&SU, &err) == FC_OK);
        nonzero += seg_compare();
        batches++;
        CHECK(ty_st_seg_save_h(&ST, &ST.batch.state.h[0][0], &err) == FC_OK &&
              ty_su_seg_save_h(&SU, &SU.batch.state.h[0][0], &err) == FC_OK);
    }
    CHECK_MSG(a == FC_END, "%s", err.message);
    CHECK_MSG(batches == 8 && nonzero > 80, "%zu batches, %zu non-zero", batches, nonzero);

    /* out of range: from a record, and from a struct; neither takes a slot */
    CHECK(ty_st_seg_init(&ST, &err) == FC_OK);
    seg_record(&seq, 1, 4, 256);
    CHECK(ty_st_seg_insert_record(&ST, "x", 1, seq.b, seq.n, FC_SEG_LENGTH_FRAMES, NULL, &err) ==
          FC_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "Context feature: lab.  Value 256 at index 0 is out of the "
                                  "range of uint8 (0 to 255)") == 0,
              "%s", err.message);
    seg_record(&seq, 1, 4, 255);
    CHECK(ty_st_parse(&st, seq.b, seq.n, &err) == FC_OK);
    st.ids[2] = -129;
    CHECK(ty_st_seg_insert(&ST, "x", 1, &st, FC_SEG_LENGTH_FRAMES, NULL, &err) == FC_ERR_PARSE);
    CHECK_MSG(strcmp(err.message, "Feature list: ids, Index: 2.  Value -129 at index 0 is out "
                                  "of the range of int8 (-128 to 127)") == 0,
              "%s", err.message);
    CHECK(ST.core.in_flight == 0);
    st.ids[2] = 127;
    CHECK(ty_st_seg_insert(&ST, "x", 1, &st, FC_SEG_LENGTH_FRAMES, NULL, &err) == FC_OK &&
          ST.core.in_flight == 1);
}

int main(void)
{
    RUN(test_float16_rounding);
    RUN(test_values);
    RUN(test_decode_raw_order);
    RUN(test_errors);
    RUN(test_batch);
    RUN(test_context);
    RUN(test_lists);
    RUN(test_list_batch);
    RUN(test_rows);
    RUN(test_ragged);
    RUN(test_sparse);
    RUN(test_seq_ragged);
    RUN(test_hashed);
    RUN(test_segments);
    return harness_report("typed");
}
