/* The protobuf-c fallback decoder: canonical encodings from
 * docs/tf-semantics.md 1.2, protobuf semantics (last duplicate wins, merges),
 * classification of payloads, reasons with offsets, arena exhaustion, and
 * every record of the corpus. */
#include <featc/fc.h>
#include <featc/fc_fallback.h>

#include "fc_example.pb-c.h" /* protobuf-c's generated code, in the build */

#include "harness.h"

static unsigned char arena_mem[1 << 22];

static fc_status decode_hex(const char *hex, int flags, fc_fallback *fb, fc_error *err)
{
    static unsigned char buf[4096];
    static fc_arena arena;
    size_t n = h_unhex(hex, buf);
    fc_arena_init(&arena, arena_mem, sizeof arena_mem);
    return fc_fallback_decode(buf, n, FC_PAYLOAD_AUTO, flags, &arena, fb, err);
}

static const fc_fb_value *feature(const fc_fallback *fb, const char *key)
{
    const fc_fb_feature *f = fc_fallback_find(fb, key, strlen(key));
    return f != NULL ? f->value : NULL;
}

static void test_canonical_encodings(void)
{
    fc_fallback fb;
    fc_error err;
    const fc_fb_value *f;
    /* Example{} is the empty string; Example{features{}} is 0a00 */
    CHECK(decode_hex("", 0, &fb, &err) == FC_OK && fb.kind == FC_PAYLOAD_EXAMPLE &&
          fb.n_features == 0 && !fb.has_features);
    CHECK(decode_hex("0a00", 0, &fb, &err) == FC_OK && fb.has_features &&
          fb.n_features == 0);
    /* age = 13, packed and unpacked */
    CHECK(decode_hex("0a0e0a0c0a0361676512051a030a010d", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "age");
    CHECK(f != NULL && f->kind == FC_FB_INT64 &&
          f->n == 1 && f->int64s[0] == 13);
    CHECK(decode_hex("0a0d0a0b0a0361676512041a02080d", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "age");
    CHECK(f != NULL && f->n == 1 && f->int64s[0] == 13);
    /* age = -1: a 10-byte varint */
    CHECK(decode_hex("0a170a150a03616765120e1a0c0a0affffffffffffffffff01", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "age");
    CHECK(f != NULL && f->int64s[0] == -1);
    /* f = [1.5] */
    CHECK(decode_hex("0a0f0a0d0a0166120812060a040000c03f", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "f");
    CHECK(f != NULL && f->kind == FC_FB_FLOAT &&
          f->n == 1 && f->floats[0] == 1.5f);
    /* b = ["hi", ""] */
    CHECK(decode_hex("0a0f0a0d0a016212080a060a0268690a00", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "b");
    CHECK(f != NULL && f->kind == FC_FB_BYTES &&
          f->n == 2 && f->bytes[0].len == 2 &&
          memcmp(f->bytes[0].data, "hi", 2) == 0 && f->bytes[1].len == 0);
    /* c = Feature{} (no kind), and the empty key */
    CHECK(decode_hex("0a070a050a01631200", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "c");
    CHECK(f != NULL && f->kind == FC_FB_NONE);
    CHECK(decode_hex("0a060a040a001200", 0, &fb, &err) == FC_OK && fb.n_features == 1 &&
          fb.features[0].key_len == 0);
}

static void test_duplicates_last_wins_and_sorted(void)
{
    fc_fallback fb;
    fc_error err;
    const fc_fb_value *f;
    /* entries: b=[1], a=[2], b=[3] -> a=[2], b=[3] */
    CHECK(decode_hex("0a21"
                     "0a090a016212041a020801"
                     "0a090a016112041a020802"
                     "0a090a016212041a020803",
                     0, &fb, &err) == FC_OK);
    CHECK(fb.n_features == 2);
    CHECK(fb.features[0].key_len == 1 && fb.features[0].key[0] == 'a');
    f = feature(&fb, "b");
    CHECK(f != NULL && f->int64s[0] == 3);
}

static void test_concatenation_strict_and_lenient(void)
{
    fc_fallback fb;
    fc_error err;
    const fc_fb_value *f;
    /* {age:0} + {age:15}: two top-level features fields */
    const char *hex = "0a0d0a0b0a0361676512041a020800"
                      "0a0d0a0b0a0361676512041a02080f";
    CHECK(decode_hex(hex, 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "top-level field 1 occurs more than once");
    CHECK(decode_hex(hex, FC_FALLBACK_LENIENT, &fb, &err) == FC_OK);
    f = feature(&fb, "age");
    CHECK(f != NULL && f->int64s[0] == 15);
}

static void test_not_examples_with_reasons(void)
{
    fc_fallback fb;
    fc_error err;
    /* plain text */
    CHECK(decode_hex("68656c6c6f20776f726c64", 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "not an Example or SequenceExample: ");
    /* unknown field inside Features */
    CHECK(decode_hex("0a02" "1000", 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "unknown field 2 in Features at byte 2");
    /* truncated length */
    CHECK(decode_hex("0a05" "0a03", 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "truncated length-delimited field 1 in Example at byte 0");
    /* key that is not UTF-8 */
    CHECK(decode_hex("0a080a060a02ff611200", 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "key that is not valid UTF-8");
    /* packed floats of 5 bytes */
    CHECK(decode_hex("0a100a0e0a0166120912070a050000c03f00", 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "packed floats whose length is not a multiple of 4: 5");
    /* an 11-byte varint */
    CHECK(decode_hex("0a180a160a03616765120f1a0d0a0bffffffffffffffffffff01", 0, &fb, &err) ==
          FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "overlong packed varint");
    /* map entry with no value, group wire type */
    CHECK(decode_hex("0a050a030a0161", 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "value given 0 times");
    CHECK(decode_hex("0b", 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "invalid wire type 3");
    /* found by the fuzzer: protobuf-c cannot merge two empty Feature values;
     * the walker refuses them first */
    CHECK(decode_hex("0a0f0a0d0a01080a001200120012001200", FC_FALLBACK_LENIENT, &fb, &err) ==
          FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "protobuf-c cannot merge two empty Features");
    CHECK(decode_hex("0a0f0a0d0a01080a001200120012001200", 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "key given 2 times (map entries have one)");
    CHECK(decode_hex("0a0b0a090a0108120012021a00", FC_FALLBACK_LENIENT, &fb, &err) == FC_OK);
    /* a Feature with two kinds */
    CHECK(decode_hex("0a0e0a0c0a016312070a001200" "1a0100", 0, &fb, &err) == FC_ERR_PARSE);
}

static void test_sequence_example(void)
{
    fc_fallback fb;
    fc_error err;
    const fc_fb_feature_list *l;
    /* context {n:[7]}, feature_lists {s: [[1.5], Feature{}]}; first with a
     * 5-byte float run, which is not valid protobuf */
    CHECK(decode_hex("0a0b"
                     "0a09" "0a016e" "12041a020807"
                     "1214"
                     "0a12" "0a0173" "120d" "0a09" "12070a050000c03f00" "0a00",
                     0, &fb, &err) != FC_OK); /* 5-byte float run: not valid */
    CHECK(decode_hex("0a0b"
                     "0a09" "0a016e" "12041a020807"
                     "1213"
                     "0a11" "0a0173" "120c" "0a08" "12060a040000c03f" "0a00",
                     0, &fb, &err) == FC_OK);
    CHECK_MSG(fb.kind == FC_PAYLOAD_SEQUENCE_EXAMPLE, "%s", err.message);
    CHECK(fb.n_features == 1 && fb.n_feature_lists == 1);
    l = fc_fallback_find_list(&fb, "s", 1);
    CHECK(l != NULL && l->n_frames == 2 && l->frames[0].floats[0] == 1.5f &&
          l->frames[1].kind == FC_FB_NONE);
}

static void test_arena_exhaustion(void)
{
    static unsigned char small[64];
    unsigned char rec[64];
    size_t n = h_unhex("0a0f0a0d0a016212080a060a0268690a00", rec);
    fc_arena a;
    fc_fallback fb;
    fc_error err;
    fc_arena_init(&a, small, sizeof small);
    CHECK(fc_fallback_decode(rec, n, FC_PAYLOAD_AUTO, 0, &a, &fb, &err) == FC_ERR_NO_MEMORY);
    CHECK_CONTAINS(err.message, "arena of 64 bytes exhausted");
    fc_arena_init(&a, arena_mem, sizeof arena_mem);
    CHECK(fc_fallback_decode(rec, n, FC_PAYLOAD_AUTO, 0, &a, &fb, &err) == FC_OK);
}

static void test_utf8(void)
{
    CHECK(fc_utf8_valid((const uint8_t *)"abc", 3));
    CHECK(fc_utf8_valid((const uint8_t *)"\xc3\xa9", 2));
    CHECK(fc_utf8_valid((const uint8_t *)"\xf0\x9f\x98\x80", 4));
    CHECK(!fc_utf8_valid((const uint8_t *)"\xc0\xaf", 2));         /* overlong */
    CHECK(!fc_utf8_valid((const uint8_t *)"\xed\xa0\x80", 3));     /* surrogate */
    CHECK(!fc_utf8_valid((const uint8_t *)"\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
    CHECK(!fc_utf8_valid((const uint8_t *)"\xe2\x82", 2));         /* cut */
}

/* Every record of the corpus is classified as the manifest says. */
/* The corpus's MANIFEST.tsv, past its header line (its folder in
 * *corpus), or NULL after a failed check. */
static FILE *open_manifest(const char **corpus)
{
    char path[1024], line[4096];
    FILE *tsv;
    *corpus = getenv("FEATC_CORPUS");
    CHECK_MSG(*corpus != NULL, "FEATC_CORPUS is not set");
    if (*corpus == NULL)
        return NULL;
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", *corpus);
    tsv = fopen(path, "r");
    CHECK_MSG(tsv != NULL, "cannot open %s", path);
    if (tsv != NULL)
        (void)fgets(line, sizeof line, tsv); /* header */
    return tsv;
}

static void test_corpus_classification(void)
{
    const char *corpus;
    char path[1024], line[4096];
    FILE *tsv = open_manifest(&corpus);
    int files = 0;
    if (tsv == NULL)
        return;
    while (fgets(line, sizeof line, tsv) != NULL) {
        char *col[13];
        int k = 0;
        char *p = line, *file, *type, *ok;
        fc_mapped_file m;
        fc_reader r;
        fc_reader_options o;
        static unsigned char buf[1 << 21], work[FC_READER_WORK_SIZE];
        fc_record rec;
        int s;
        size_t n = 0;
        while (k < 13 && p != NULL) {
            col[k++] = p;
            p = strchr(p, '\t');
            if (p != NULL)
                *p++ = '\0';
        }
        if (k < 13)
            continue;
        file = col[0];
        type = col[5];
        ok = col[11];
        if (strcmp(ok, "yes") != 0)
            continue; /* damaged files: see the CLI tests */
        snprintf(path, sizeof path, "%s/%s", corpus, file);
        CHECK(fc_map_file(path, &m, NULL) == FC_OK);
        memset(&o, 0, sizeof o);
        o.compression = FC_COMPRESSION_AUTO;
        o.buffer = buf;
        o.buffer_size = sizeof buf;
        o.work = work;
        o.work_size = sizeof work;
        CHECK(fc_reader_init_mem(&r, m.data, m.size, &o, NULL) == FC_OK);
        while ((s = fc_reader_next(&r, &rec)) == FC_OK) {
            fc_arena a;
            fc_fallback fb;
            fc_error err;
            fc_status ds;
            fc_arena_init(&a, arena_mem, sizeof arena_mem);
            ds = fc_fallback_decode(rec.data, rec.length, FC_PAYLOAD_AUTO, 0, &a, &fb, &err);
            if (strcmp(type, "Example") == 0)
                CHECK_MSG(ds == FC_OK && fb.kind == FC_PAYLOAD_EXAMPLE, "%s record %zu: %s", file,
                          n, err.message);
            else if (strcmp(type, "SequenceExample") == 0)
                CHECK_MSG(ds == FC_OK && fb.kind == FC_PAYLOAD_SEQUENCE_EXAMPLE,
                          "%s record %zu: %s", file, n, err.message);
            else
                CHECK_MSG(ds == FC_ERR_PARSE, "%s record %zu accepted", file, n);
            n++;
        }
        CHECK_MSG(s == FC_END, "%s: %s", file, fc_reader_error(&r)->message);
        CHECK_MSG(n == (size_t)strtoul(col[4], NULL, 10), "%s: %zu records", file, n);
        fc_unmap_file(&m);
        files++;
    }
    fclose(tsv);
    CHECK_MSG(files == 30, "%d intact corpus files", files);
}

/* Known values from the corpus generators (MANIFEST.md remarks). */
static void test_corpus_known_values(void)
{
    const char *corpus = getenv("FEATC_CORPUS");
    char path[1024];
    fc_mapped_file m;
    fc_reader r;
    fc_record rec;
    int i = 0;
    if (corpus == NULL) {
        CHECK_MSG(0, "FEATC_CORPUS is not set");
        return;
    }
    /* pytorch-data example: x_float = [10i .. 10i+9], x_int = 10 * those, x_byte = "test str" */
    snprintf(path, sizeof path, "%s/pytorch-data__example.tfrecord", corpus);
    CHECK(fc_map_file(path, &m, NULL) == FC_OK);
    CHECK(fc_reader_init_mem(&r, m.data, m.size, NULL, NULL) == FC_OK);
    while (fc_reader_next(&r, &rec) == FC_OK) {
        fc_arena a;
        fc_fallback fb;
        fc_error err;
        const fc_fb_value *xf, *xi, *xb;
        int k;
        fc_arena_init(&a, arena_mem, sizeof arena_mem);
        CHECK(fc_fallback_decode(rec.data, rec.length, FC_PAYLOAD_AUTO, 0, &a, &fb, &err) == FC_OK);
        xf = feature(&fb, "x_float");
        xi = feature(&fb, "x_int");
        xb = feature(&fb, "x_byte");
        CHECK(xf != NULL && xi != NULL && xb != NULL);
        if (xf == NULL || xi == NULL || xb == NULL)
            break;
        CHECK(xf->n == 10 && xi->n == 10);
        for (k = 0; k < 10; k++) {
            CHECK(xf->floats[k] == (float)(10 * i + k));
            CHECK(xi->int64s[k] == 10 * (10 * i + k));
        }
        CHECK(xb->n == 1 && xb->bytes[0].len == 8 &&
              memcmp(xb->bytes[0].data, "test str", 8) == 0);
        i++;
    }
    CHECK(i == 4);
    fc_unmap_file(&m);

    /* tf-ecosystem: data = [i, random int64], three of five negative */
    snprintf(path, sizeof path, "%s/tf-ecosystem__tf-records_part-m-00000", corpus);
    CHECK(fc_map_file(path, &m, NULL) == FC_OK);
    CHECK(fc_reader_init_mem(&r, m.data, m.size, NULL, NULL) == FC_OK);
    {
        int negatives = 0;
        i = 0;
        while (fc_reader_next(&r, &rec) == FC_OK) {
            fc_arena a;
            fc_fallback fb;
            fc_error err;
            const fc_fb_value *d;
            fc_arena_init(&a, arena_mem, sizeof arena_mem);
            CHECK(fc_fallback_decode(rec.data, rec.length, FC_PAYLOAD_AUTO, 0, &a, &fb, &err) == FC_OK);
            d = feature(&fb, "data");
            CHECK(d != NULL && d->n == 2 && d->int64s[0] == i);
            if (d != NULL && d->int64s[1] < 0)
                negatives++;
            i++;
        }
        CHECK(i == 5 && negatives == 3);
    }
    fc_unmap_file(&m);
}

/* Tags and lengths of 6 to 10 bytes, which protobuf (and TensorFlow, and the
 * generated parsers) read and protobuf-c does not: the record is re-encoded
 * for protobuf-c, with the same values.  A value above 32 bits, or 11 bytes,
 * is refused, as the generated parsers refuse it. */
static void test_long_varints(void)
{
    fc_fallback fb;
    fc_error err;
    const fc_fb_value *f;
    /* the Features length in 10 bytes */
    CHECK(decode_hex("0a" "8f808080808080808000" "0a0d0a016212080a060a0268690a00", 0, &fb, &err) ==
          FC_OK);
    f = feature(&fb, "b");
    CHECK(f != NULL && f->kind == FC_FB_BYTES &&
          f->n == 2 && f->bytes[0].len == 2 &&
          memcmp(f->bytes[0].data, "hi", 2) == 0 && f->bytes[1].len == 0);
    /* the Example's tag in 7 bytes */
    CHECK(decode_hex("8a808080808000" "0f" "0a0d0a016212080a060a0268690a00", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "b");
    CHECK(f != NULL && f->n == 2);
    /* a bytes value's length in 7 bytes, and the map entry's in 6 */
    CHECK(decode_hex("0a1a" "0a" "938080808000" "0a0162120e0a0c0a" "82808080808000" "68690a00", 0, &fb,
                     &err) == FC_OK);
    f = feature(&fb, "b");
    CHECK(f != NULL && f->n == 2 && f->bytes[0].len == 2 &&
          memcmp(f->bytes[0].data, "hi", 2) == 0);
    /* nested long lengths at every level, with an int64 list */
    CHECK(decode_hex("0a" "9b8080808000" "0a" "948080808000" "0a0161" "12" "8a8080808000" "1a"
                     "838080808000" "0a0105",
                     0, &fb, &err) == FC_OK);
    f = feature(&fb, "a");
    CHECK(f != NULL && f->kind == FC_FB_INT64 &&
          f->n == 1 && f->int64s[0] == 5);
    /* found by the fuzzer, once refused: merged empty Features */
    CHECK(decode_hex("0a000a808080808080808000", FC_FALLBACK_LENIENT, &fb, &err) == FC_OK);
    /* 2^32 as a length; an 11-byte length */
    CHECK(decode_hex("0a8080808010", 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "truncated or overlong length of field 1 in Example at byte 0");
    CHECK(decode_hex("0a" "8080808080808080808000", 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "truncated or overlong length of field 1 in Example at byte 0");
}


/* ---- fc_fallback_decode_canonical against fc_fallback_decode */

static int same_feature(const fc_fb_value *a, const fc_fb_value *b)
{
    size_t i;
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case FC_FB_BYTES:
        if (a->n != b->n)
            return 0;
        for (i = 0; i < a->n; i++)
            if (a->bytes[i].len != b->bytes[i].len ||
                (a->bytes[i].len > 0 &&
                 memcmp(a->bytes[i].data, b->bytes[i].data,
                        a->bytes[i].len) != 0))
                return 0;
        return 1;
    case FC_FB_FLOAT:
        return a->n == b->n &&
               (a->n == 0 ||
                memcmp(a->floats, b->floats,
                       a->n * sizeof(float)) == 0);
    case FC_FB_INT64:
        return a->n == b->n &&
               (a->n == 0 ||
                memcmp(a->int64s, b->int64s,
                       a->n * sizeof(int64_t)) == 0);
    default:
        return 1;
    }
}

static int same_decode(const fc_fallback *a, const fc_fallback *b)
{
    size_t i, j;
    if (a->kind != b->kind || a->n_features != b->n_features ||
        a->n_feature_lists != b->n_feature_lists)
        return 0;
    if (a->has_features != b->has_features || a->has_feature_lists != b->has_feature_lists)
        return 0;
    if (a->kind == FC_PAYLOAD_EXAMPLE) {
        /* the message protobuf-c decoded, and the canonical decoder's */
        const FcPb__Example *x = (const FcPb__Example *)a->message;
        const FcPb__Example *y = (const FcPb__Example *)b->message;
        if ((x->features == NULL) != (y->features == NULL) ||
            (x->features != NULL && x->features->n_feature != y->features->n_feature))
            return 0;
    } else {
        const FcPb__SequenceExample *x = (const FcPb__SequenceExample *)a->message;
        const FcPb__SequenceExample *y = (const FcPb__SequenceExample *)b->message;
        if ((x->context == NULL) != (y->context == NULL) ||
            (x->feature_lists == NULL) != (y->feature_lists == NULL))
            return 0;
    }
    for (i = 0; i < a->n_features; i++)
        if (a->features[i].key_len != b->features[i].key_len ||
            (a->features[i].key_len > 0 && /* protobuf-c gives an empty key NULL */
             memcmp(a->features[i].key, b->features[i].key, a->features[i].key_len) != 0) ||
            !same_feature(a->features[i].value, b->features[i].value))
            return 0;
    for (i = 0; i < a->n_feature_lists; i++) {
        const fc_fb_feature_list *x = &a->feature_lists[i], *y = &b->feature_lists[i];
        if (a->feature_lists[i].key_len != b->feature_lists[i].key_len ||
            (a->feature_lists[i].key_len > 0 &&
             memcmp(a->feature_lists[i].key, b->feature_lists[i].key,
                    a->feature_lists[i].key_len) != 0) ||
            x->n_frames != y->n_frames)
            return 0;
        for (j = 0; j < x->n_frames; j++)
            if (!same_feature(&x->frames[j], &y->frames[j]))
                return 0;
    }
    return 1;
}

static unsigned char arena_mem2[1 << 22];
static unsigned long canon_taken, canon_left, canon_checked, canon_orig, canon_orig_taken;

/* Whatever the canonical decoder accepts, the protobuf-c path accepts the
 * same way; records it declines are the other path's alone. */
static void canonical_vs_protobuf_c(const uint8_t *p, size_t n, const char *what, size_t index,
                                    int original)
{
    static const fc_payload_kind wants[] = {FC_PAYLOAD_AUTO, FC_PAYLOAD_EXAMPLE,
                                            FC_PAYLOAD_SEQUENCE_EXAMPLE};
    size_t w;
    for (w = 0; w < 3; w++) {
        fc_arena a, b;
        fc_fallback fa, fb;
        fc_error err;
        fc_status sa, sb;
        fc_arena_init(&a, arena_mem, sizeof arena_mem);
        fc_arena_init(&b, arena_mem2, sizeof arena_mem2);
        sa = fc_fallback_decode_canonical(p, n, wants[w], &a, &fa);
        sb = fc_fallback_decode(p, n, wants[w], 0, &b, &fb, &err);
        canon_checked++;
        if (original && w == 0 && sb == FC_OK) {
            canon_orig++;
            canon_orig_taken += sa == FC_OK;
            CHECK_MSG(sa == FC_OK, "%s record %zu: left to protobuf-c", what, index);
        }
        if (sa != FC_OK) {
            CHECK_MSG(sa == FC_ERR_STATE && a.used == 0, "%s record %zu: status %d, used %zu",
                      what, index, (int)sa, a.used);
            canon_left++;
            continue;
        }
        canon_taken++;
        CHECK_MSG(sb == FC_OK && same_decode(&fa, &fb), "%s record %zu (want %d): %s", what,
                  index, (int)wants[w], sb == FC_OK ? "decoded otherwise" : err.message);
    }
}

static void test_canonical_decoder(void)
{
    const char *corpus;
    char line[4096], cpath[2048 + 16];
    FILE *tsv = open_manifest(&corpus);
    unsigned long long rng = 26;
    if (tsv == NULL)
        return;
    while (fgets(line, sizeof line, tsv) != NULL) {
        static unsigned char buf[1 << 21], work[FC_READER_WORK_SIZE], mut[1 << 21];
        fc_mapped_file m;
        fc_reader r;
        fc_reader_options o;
        fc_record rec;
        size_t n = 0;
        char *tab = strchr(line, '\t');
        if (tab == NULL)
            continue;
        *tab = '\0';
        snprintf(cpath, sizeof cpath, "%.1000s/%.1000s", corpus, line);
        if (fc_map_file(cpath, &m, NULL) != FC_OK)
            continue;
        memset(&o, 0, sizeof o);
        o.compression = FC_COMPRESSION_AUTO;
        o.crc_policy = FC_CRC_NONE;
        o.buffer = buf;
        o.buffer_size = sizeof buf;
        o.work = work;
        o.work_size = sizeof work;
        if (fc_reader_init_mem(&r, m.data, m.size, &o, NULL) == FC_OK)
            while (n < 300 && fc_reader_next(&r, &rec) == FC_OK) {
                size_t k, len = rec.length < sizeof mut / 2 ? rec.length : 0;
                canonical_vs_protobuf_c(rec.data, rec.length, line, n, 1);
                /* and changed: a byte, a cut, the record twice */
                for (k = 0; len > 0 && k < 3; k++) {
                    size_t at, ml = len;
                    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                    at = (size_t)(rng >> 33) % len;
                    memcpy(mut, rec.data, len);
                    if (k == 0)
                        mut[at] = (unsigned char)(rng >> 13);
                    else if (k == 1)
                        ml = at;
                    else {
                        memcpy(mut + len, rec.data, len);
                        ml = 2 * len;
                    }
                    canonical_vs_protobuf_c(mut, ml, line, n, 0);
                }
                n++;
            }
        fc_unmap_file(&m);
    }
    fclose(tsv);
    /* every writer of the corpus writes the canonical layout: the fast
     * decoder takes each Example and SequenceExample of it (checked above) */
    CHECK_MSG(canon_orig > 1000, "%lu corpus records decoded", canon_orig);
    printf("canonical decoder: took %lu of %lu corpus records, %lu of %lu decodes with the "
           "changed ones, left %lu to protobuf-c\n", canon_orig_taken, canon_orig, canon_taken,
           canon_checked, canon_left);
}

/* ---- random records, canonical and not, built byte by byte */

static unsigned long long rnd_state = 88172645463325252ull;

static unsigned rnd(unsigned n)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return (unsigned)(rnd_state % n);
}

typedef struct wbuf {
    uint8_t b[8192];
    size_t n;
} wbuf;

static void w_byte(wbuf *w, unsigned v)
{
    if (w->n < sizeof w->b)
        w->b[w->n++] = (uint8_t)v;
}

static void w_varint(wbuf *w, uint64_t v)
{
    while (v >= 0x80) {
        w_byte(w, (unsigned)(v & 0x7f) | 0x80);
        v >>= 7;
    }
    w_byte(w, (unsigned)v);
}

/* tag, length, then the bytes of inner */
static void w_ld(wbuf *w, unsigned tag, const wbuf *inner)
{
    size_t i;
    w_byte(w, tag);
    w_varint(w, inner->n);
    for (i = 0; i < inner->n; i++)
        w_byte(w, inner->b[i]);
}

static void r_feature(wbuf *w)
{
    wbuf list, packed;
    unsigned kind = rnd(4), i, n = rnd(5);
    list.n = packed.n = 0;
    if (kind == 3)
        return; /* Feature{} */
    for (i = 0; i < n; i++) {
        if (kind == 0) {
            wbuf v;
            unsigned k, len = rnd(4);
            v.n = 0;
            for (k = 0; k < len; k++)
                w_byte(&v, rnd(3) == 0 ? 0xc3 + rnd(2) : 'a' + rnd(3));
            w_ld(&list, 0x0a, &v);
        } else if (kind == 1) {
            unsigned k, bits = rnd(2) ? 0x3fc00000u + rnd(1000) : (unsigned)rnd_state;
            if (rnd(8) == 0) { /* unpacked: the other path's */
                w_byte(&list, 0x0d);
                for (k = 0; k < 4; k++)
                    w_byte(&list, (bits >> (8 * k)) & 0xff);
            } else {
                for (k = 0; k < 4; k++)
                    w_byte(&packed, (bits >> (8 * k)) & 0xff);
            }
        } else {
            uint64_t v = rnd(3) == 0 ? (uint64_t)-(int64_t)rnd(1000) : rnd(100000);
            if (rnd(8) == 0) {
                w_byte(&list, 0x08);
                w_varint(&list, v);
            } else {
                w_varint(&packed, v);
            }
        }
    }
    if (packed.n > 0 || (kind != 0 && rnd(4) == 0))
        w_ld(&list, 0x0a, &packed);
    w_ld(w, kind == 0 ? 0x0a : kind == 1 ? 0x12 : 0x1a, &list);
}

static void r_key(wbuf *k)
{
    unsigned i, n = rnd(4);
    static const char *const names[] = {"a", "b", "ab", "", "z"};
    const char *name = names[rnd(5)];
    k->n = 0;
    for (i = 0; name[i] != '\0'; i++)
        w_byte(k, (unsigned char)name[i]);
    if (rnd(16) == 0)
        w_byte(k, 0xff); /* not UTF-8 */
    (void)n;
}

static void r_map(wbuf *w, int lists)
{
    unsigned i, n = rnd(5);
    for (i = 0; i < n; i++) {
        wbuf entry, key, value;
        entry.n = value.n = 0;
        r_key(&key);
        if (lists) {
            unsigned j, frames = rnd(4);
            for (j = 0; j < frames; j++) {
                wbuf f;
                f.n = 0;
                r_feature(&f);
                w_ld(&value, 0x0a, &f);
            }
        } else {
            r_feature(&value);
        }
        if (rnd(16) == 0) { /* value before key: the other path's */
            w_ld(&entry, 0x12, &value);
            w_ld(&entry, 0x0a, &key);
        } else {
            w_ld(&entry, 0x0a, &key);
            w_ld(&entry, 0x12, &value);
        }
        w_ld(w, 0x0a, &entry);
    }
}

static void test_canonical_random(void)
{
    unsigned r;
    unsigned long taken = canon_taken;
    for (r = 0; r < 20000; r++) {
        wbuf rec, feats, lists;
        rec.n = feats.n = lists.n = 0;
        r_map(&feats, 0);
        if (rnd(4) != 0)
            w_ld(&rec, 0x0a, &feats);
        if (rnd(3) == 0) {
            r_map(&lists, 1);
            w_ld(&rec, 0x12, &lists);
        }
        if (rnd(32) == 0)
            w_ld(&rec, 0x0a, &feats); /* a field twice */
        if (rnd(32) == 0 && rec.n > 0)
            rec.n = rnd((unsigned)rec.n); /* cut */
        canonical_vs_protobuf_c(rec.b, rec.n, "random", r, 0);
    }
    CHECK_MSG(canon_taken - taken > 20000, "canonical decoder took %lu random decodes",
              canon_taken - taken);
    printf("canonical decoder: took %lu of 60000 random decodes\n", canon_taken - taken);
}

int main(void)
{
    RUN(test_canonical_encodings);
    RUN(test_duplicates_last_wins_and_sorted);
    RUN(test_concatenation_strict_and_lenient);
    RUN(test_not_examples_with_reasons);
    RUN(test_long_varints);
    RUN(test_sequence_example);
    RUN(test_arena_exhaustion);
    RUN(test_utf8);
    RUN(test_corpus_classification);
    RUN(test_corpus_known_values);
    RUN(test_canonical_decoder);
    RUN(test_canonical_random);
    return harness_report("fallback");
}
