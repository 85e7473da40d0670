/* The protobuf-c fallback decoder: canonical encodings from
 * docs/tf-semantics.md 1.2, protobuf semantics (last duplicate wins, merges),
 * classification of payloads, reasons with offsets, arena exhaustion, and
 * every record of the corpus. */
#include <featc/fc.h>
#include <featc/fc_fallback.h>

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

static const FcPb__Feature *feature(const fc_fallback *fb, const char *key)
{
    const fc_fb_feature *f = fc_fallback_find(fb, key, strlen(key));
    return f != NULL ? f->value : NULL;
}

static void test_canonical_encodings(void)
{
    fc_fallback fb;
    fc_error err;
    const FcPb__Feature *f;
    /* Example{} is the empty string; Example{features{}} is 0a00 */
    CHECK(decode_hex("", 0, &fb, &err) == FC_OK && fb.kind == FC_PAYLOAD_EXAMPLE &&
          fb.n_features == 0 && fb.example->features == NULL);
    CHECK(decode_hex("0a00", 0, &fb, &err) == FC_OK && fb.example->features != NULL &&
          fb.n_features == 0);
    /* age = 13, packed and unpacked */
    CHECK(decode_hex("0a0e0a0c0a0361676512051a030a010d", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "age");
    CHECK(f != NULL && f->kind_case == FC_PB__FEATURE__KIND_INT64_LIST &&
          f->int64_list->n_value == 1 && f->int64_list->value[0] == 13);
    CHECK(decode_hex("0a0d0a0b0a0361676512041a02080d", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "age");
    CHECK(f != NULL && f->int64_list->n_value == 1 && f->int64_list->value[0] == 13);
    /* age = -1: a 10-byte varint */
    CHECK(decode_hex("0a170a150a03616765120e1a0c0a0affffffffffffffffff01", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "age");
    CHECK(f != NULL && f->int64_list->value[0] == -1);
    /* f = [1.5] */
    CHECK(decode_hex("0a0f0a0d0a0166120812060a040000c03f", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "f");
    CHECK(f != NULL && f->kind_case == FC_PB__FEATURE__KIND_FLOAT_LIST &&
          f->float_list->n_value == 1 && f->float_list->value[0] == 1.5f);
    /* b = ["hi", ""] */
    CHECK(decode_hex("0a0f0a0d0a016212080a060a0268690a00", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "b");
    CHECK(f != NULL && f->kind_case == FC_PB__FEATURE__KIND_BYTES_LIST &&
          f->bytes_list->n_value == 2 && f->bytes_list->value[0].len == 2 &&
          memcmp(f->bytes_list->value[0].data, "hi", 2) == 0 && f->bytes_list->value[1].len == 0);
    /* c = Feature{} (no kind), and the empty key */
    CHECK(decode_hex("0a070a050a01631200", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "c");
    CHECK(f != NULL && f->kind_case == FC_PB__FEATURE__KIND__NOT_SET);
    CHECK(decode_hex("0a060a040a001200", 0, &fb, &err) == FC_OK && fb.n_features == 1 &&
          fb.features[0].key_len == 0);
}

static void test_duplicates_last_wins_and_sorted(void)
{
    fc_fallback fb;
    fc_error err;
    const FcPb__Feature *f;
    /* entries: b=[1], a=[2], b=[3] -> a=[2], b=[3] */
    CHECK(decode_hex("0a21"
                     "0a090a016212041a020801"
                     "0a090a016112041a020802"
                     "0a090a016212041a020803",
                     0, &fb, &err) == FC_OK);
    CHECK(fb.n_features == 2);
    CHECK(fb.features[0].key_len == 1 && fb.features[0].key[0] == 'a');
    f = feature(&fb, "b");
    CHECK(f != NULL && f->int64_list->value[0] == 3);
}

static void test_concatenation_strict_and_lenient(void)
{
    fc_fallback fb;
    fc_error err;
    const FcPb__Feature *f;
    /* {age:0} + {age:15}: two top-level features fields */
    const char *hex = "0a0d0a0b0a0361676512041a020800"
                      "0a0d0a0b0a0361676512041a02080f";
    CHECK(decode_hex(hex, 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "top-level field 1 occurs more than once");
    CHECK(decode_hex(hex, FC_FALLBACK_LENIENT, &fb, &err) == FC_OK);
    f = feature(&fb, "age");
    CHECK(f != NULL && f->int64_list->value[0] == 15);
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
    CHECK(l != NULL && l->value->n_feature == 2 &&
          l->value->feature[0]->float_list->value[0] == 1.5f &&
          l->value->feature[1]->kind_case == FC_PB__FEATURE__KIND__NOT_SET);
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
static void test_corpus_classification(void)
{
    const char *corpus = getenv("FEATC_CORPUS");
    char path[1024], line[4096];
    FILE *tsv;
    int files = 0;
    CHECK_MSG(corpus != NULL, "FEATC_CORPUS is not set");
    if (corpus == NULL)
        return;
    snprintf(path, sizeof path, "%s/MANIFEST.tsv", corpus);
    tsv = fopen(path, "r");
    CHECK_MSG(tsv != NULL, "cannot open %s", path);
    if (tsv == NULL)
        return;
    (void)fgets(line, sizeof line, tsv); /* header */
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
        const FcPb__Feature *xf, *xi, *xb;
        int k;
        fc_arena_init(&a, arena_mem, sizeof arena_mem);
        CHECK(fc_fallback_decode(rec.data, rec.length, FC_PAYLOAD_AUTO, 0, &a, &fb, &err) == FC_OK);
        xf = feature(&fb, "x_float");
        xi = feature(&fb, "x_int");
        xb = feature(&fb, "x_byte");
        CHECK(xf != NULL && xi != NULL && xb != NULL);
        if (xf == NULL || xi == NULL || xb == NULL)
            break;
        CHECK(xf->float_list->n_value == 10 && xi->int64_list->n_value == 10);
        for (k = 0; k < 10; k++) {
            CHECK(xf->float_list->value[k] == (float)(10 * i + k));
            CHECK(xi->int64_list->value[k] == 10 * (10 * i + k));
        }
        CHECK(xb->bytes_list->n_value == 1 && xb->bytes_list->value[0].len == 8 &&
              memcmp(xb->bytes_list->value[0].data, "test str", 8) == 0);
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
            const FcPb__Feature *d;
            fc_arena_init(&a, arena_mem, sizeof arena_mem);
            CHECK(fc_fallback_decode(rec.data, rec.length, FC_PAYLOAD_AUTO, 0, &a, &fb, &err) == FC_OK);
            d = feature(&fb, "data");
            CHECK(d != NULL && d->int64_list->n_value == 2 && d->int64_list->value[0] == i);
            if (d != NULL && d->int64_list->value[1] < 0)
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
    const FcPb__Feature *f;
    /* the Features length in 10 bytes */
    CHECK(decode_hex("0a" "8f808080808080808000" "0a0d0a016212080a060a0268690a00", 0, &fb, &err) ==
          FC_OK);
    f = feature(&fb, "b");
    CHECK(f != NULL && f->kind_case == FC_PB__FEATURE__KIND_BYTES_LIST &&
          f->bytes_list->n_value == 2 && f->bytes_list->value[0].len == 2 &&
          memcmp(f->bytes_list->value[0].data, "hi", 2) == 0 && f->bytes_list->value[1].len == 0);
    /* the Example's tag in 7 bytes */
    CHECK(decode_hex("8a808080808000" "0f" "0a0d0a016212080a060a0268690a00", 0, &fb, &err) == FC_OK);
    f = feature(&fb, "b");
    CHECK(f != NULL && f->bytes_list->n_value == 2);
    /* a bytes value's length in 7 bytes, and the map entry's in 6 */
    CHECK(decode_hex("0a1a" "0a" "938080808000" "0a0162120e0a0c0a" "82808080808000" "68690a00", 0, &fb,
                     &err) == FC_OK);
    f = feature(&fb, "b");
    CHECK(f != NULL && f->bytes_list->n_value == 2 && f->bytes_list->value[0].len == 2 &&
          memcmp(f->bytes_list->value[0].data, "hi", 2) == 0);
    /* nested long lengths at every level, with an int64 list */
    CHECK(decode_hex("0a" "9b8080808000" "0a" "948080808000" "0a0161" "12" "8a8080808000" "1a"
                     "838080808000" "0a0105",
                     0, &fb, &err) == FC_OK);
    f = feature(&fb, "a");
    CHECK(f != NULL && f->kind_case == FC_PB__FEATURE__KIND_INT64_LIST &&
          f->int64_list->n_value == 1 && f->int64_list->value[0] == 5);
    /* found by the fuzzer, once refused: merged empty Features */
    CHECK(decode_hex("0a000a808080808080808000", FC_FALLBACK_LENIENT, &fb, &err) == FC_OK);
    /* 2^32 as a length; an 11-byte length */
    CHECK(decode_hex("0a8080808010", 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "truncated or overlong length of field 1 in Example at byte 0");
    CHECK(decode_hex("0a" "8080808080808080808000", 0, &fb, &err) == FC_ERR_PARSE);
    CHECK_CONTAINS(err.message, "truncated or overlong length of field 1 in Example at byte 0");
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
    return harness_report("fallback");
}
