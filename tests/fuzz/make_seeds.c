/* Writes the committed seed corpora of the fuzzers (tests/fuzz/seeds/) with
 * featc's own writer: small TFRecord files, plain, ZLIB and GZIP, and
 * Example / SequenceExample payloads; for fuzz_parser, records of
 * tests/specs/semantics.feat (raw mode) and a few structured-mode inputs;
 * batches of tests/specs/batch.feat records for fuzz_batch; files with
 * TFRecord streams inside records for fuzz_sync.
 * The spec compiler's seeds are spec files, copied by the Makefile.
 * Run: make fuzz-seeds. */
#include <featc/fc.h>

#include <stdio.h>
#include <string.h>

#include "../unit/hex.h"
#include "../unit/wire.h"

static unsigned char work[FC_DEFLATE_ARENA_SIZE];

/* payloads: docs/tf-semantics.md 1.2 encodings and a small SequenceExample */
static const char *const payload_hex[] = {
    "",
    "0a00",
    "0a0e0a0c0a0361676512051a030a010d",
    "0a0d0a0b0a0361676512041a02080d",
    "0a170a150a03616765120e1a0c0a0affffffffffffffffff01",
    "0a0f0a0d0a0166120812060a040000c03f",
    "0a0f0a0d0a016212080a060a0268690a00",
    "0a070a050a01631200",
    "0a0b0a090a016e12041a0208071213" "0a110a0173120c0a0812060a040000c03f0a00",
};

static int write_file(const char *dir, const char *name, unsigned char mode,
                      const unsigned char *p, size_t n)
{
    char path[512];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (f == NULL)
        return 1;
    if (mode != 0xff)
        fputc(mode, f);
    fwrite(p, 1, n, f);
    return fclose(f) != 0;
}

/* Records of tests/specs/semantics.feat: a full valid one, then variants. */
static void parser_seeds(const char *dir, int *rc)
{
    static const int64_t ints[5] = {1, -2, 300, 1LL << 40, -1};
    static const float floats[6] = {1, 2.5f, -3, 4, 5, 6};
    static const char *const words[3] = {"a", "", "xyz"};
    static wbuf feats, ex, f;
    unsigned char bytes[64];
    int k;
    for (k = 0; k < 6; k++) {
        char name[32];
        feats.n = ex.n = 0;
        f.n = 0;
        if (k == 4)
            f_int64_unpacked(&f, ints, 1);
        else
            f_int64_packed(&f, ints, 1);
        w_entry(&feats, "s", &f);
        f.n = 0;
        if (k == 4)
            f_float_unpacked(&f, floats, 3);
        else
            f_float_packed(&f, floats, k == 1 ? 2 : 3); /* 1: a count error */
        w_entry(&feats, "f3", &f);
        if (k != 2) { /* 2: only the required features */
            f.n = 0;
            f_int64_packed(&f, ints, k == 3 ? 5 : 4); /* 3: over the bound */
            w_entry(&feats, "v", &f);
            f.n = 0;
            f_bytes(&f, words, 3);
            w_entry(&feats, "vb", &f);
            f.n = 0;
            f_bytes(&f, words, 2);
            w_entry(&feats, "b2", &f);
            f.n = 0;
            f_float_packed(&f, floats, 6);
            w_entry(&feats, "r", &f);
            f.n = 0;
            f_float_packed(&f, floats, 1);
            w_entry(&feats, "a/b", &f);
            f.n = 0; /* Feature{} */
            w_entry(&feats, "d", &f);
        }
        if (k == 5) { /* 5: a wrong type */
            f.n = 0;
            f_bytes(&f, words, 1);
            w_entry(&feats, "s", &f);
        }
        w_example(&ex, &feats);
        snprintf(name, sizeof name, "record-%d", k);
        *rc |= write_file(dir, name, 0x00, ex.b, ex.n);
    }
    /* structured mode: odd first byte, then the bytes that drive the generator */
    for (k = 0; k < 4; k++) {
        char name[32];
        size_t i;
        for (i = 0; i < sizeof bytes; i++)
            bytes[i] = (unsigned char)(i * (unsigned)(2 * k + 1) + (unsigned)k * 77u);
        snprintf(name, sizeof name, "structured-%d", k);
        *rc |= write_file(dir, name, 0x01, bytes, sizeof bytes);
    }
}

/* SequenceExample records for tests/specs/seqsem.feat (no mode byte). */
static void seq_seeds(const char *dir, int *rc)
{
    static const int64_t ints[3] = {1, 2, 3};
    static const float floats[4] = {1, 2, 3, 4};
    static const char *const words[2] = {"a", "bc"};
    static wbuf ctx, lists, ex, f, fl;
    int k;
    for (k = 0; k < 3; k++) {
        char name[32];
        ctx.n = lists.n = ex.n = 0;
        f.n = 0;
        f_int64_packed(&f, ints, 1);
        w_entry(&ctx, "c", &f);
        f.n = 0;
        f_float_packed(&f, floats, 2);
        w_entry(&ctx, "cd", &f);
        f.n = 0;
        f_bytes(&f, words, 2);
        w_entry(&ctx, "cv", &f);
        /* fr: two frames of one int64; x: the same for message a */
        fl.n = f.n = 0;
        f_int64_unpacked(&f, ints, 1);
        w_len(&fl, 0x0A, f.b, f.n);
        w_len(&fl, 0x0A, f.b, f.n);
        w_entry(&lists, "fr", &fl);
        w_entry(&lists, "x", &fl);
        /* fm: two frames of two floats */
        fl.n = f.n = 0;
        f_float_packed(&f, floats, 2);
        w_len(&fl, 0x0A, f.b, f.n);
        w_len(&fl, 0x0A, f.b, f.n);
        w_entry(&lists, "fm", &fl);
        /* v, y: a frame of two bytes, an empty frame */
        fl.n = f.n = 0;
        f_bytes(&f, words, 2);
        w_len(&fl, 0x0A, f.b, f.n);
        w_len(&fl, 0x0A, "", 0);
        w_entry(&lists, "v", &fl);
        w_entry(&lists, "y", &fl);
        /* vu: frames of k + 1 values */
        fl.n = f.n = 0;
        f_int64_packed(&f, ints, (size_t)k + 1);
        w_len(&fl, 0x0A, f.b, f.n);
        w_len(&fl, 0x0A, f.b, f.n);
        w_entry(&lists, "vu", &fl);
        w_len(&ex, 0x0A, ctx.b, ctx.n);
        w_len(&ex, 0x12, lists.b, lists.n);
        snprintf(name, sizeof name, "sequence-%d", k);
        *rc |= write_file(dir, name, 0xff, ex.b, ex.n);
    }
    /* RaggedFeatures of tests/specs/seqragged.feat: in the context and in
     * feature lists, every partition kind; record 1 with one frame more */
    for (k = 0; k < 2; k++) {
        static const int64_t cl[2] = {2, 1}, fl2[2] = {2, 1}, fi[3] = {0, 0, 2}, fs[3] = {0, 1, 2};
        static const int64_t st[2] = {0, 1}, lm[2] = {1, 3};
        static const int64_t *const parts[5] = {fl2, fi, fs, st, lm};
        static const size_t nparts[5] = {2, 3, 3, 2, 2};
        static const char *const pkeys[5] = {"fl", "fi", "fs", "st", "lm"};
        char name[32];
        size_t q, t, frames = (size_t)k + 1;
        ctx.n = lists.n = ex.n = 0;
        f.n = 0;
        f_int64_packed(&f, ints, 3);
        w_entry(&ctx, "cflat", &f);
        f.n = 0;
        f_float_packed(&f, floats, 3);
        w_entry(&ctx, "cv", &f);
        f.n = 0;
        f_int64_packed(&f, cl, 2);
        w_entry(&ctx, "cl", &f);
        f.n = 0;
        f_bytes(&f, words, 2);
        w_list_entry(&lists, "flat", &f, frames);
        f.n = 0;
        f_float_packed(&f, floats, 3);
        w_list_entry(&lists, "fv", &f, frames);
        fl.n = 0;
        for (t = 0; t < frames; t++) {
            static const int64_t four[4] = {1, 2, 3, 4};
            f.n = 0;
            f_int64_packed(&f, t == 0 ? four : ints, t == 0 ? 4 : 3);
            w_len(&fl, 0x0A, f.b, f.n);
        }
        w_entry(&lists, "splits", &fl);
        w_entry(&lists, "sv", &fl);
        for (q = 0; q < 5; q++) {
            f.n = 0;
            f_int64_packed(&f, parts[q], nparts[q]);
            w_list_entry(&lists, pkeys[q], &f, frames);
        }
        w_len(&ex, 0x0A, ctx.b, ctx.n);
        w_len(&ex, 0x12, lists.b, lists.n);
        snprintf(name, sizeof name, "ragged-%d", k);
        *rc |= write_file(dir, name, 0xff, ex.b, ex.n);
    }
}

/* Batches for fuzz_batch (tests/specs/batch.feat): a mode byte, a mask and
 * an amount byte for shrinking, then records as a length byte and the
 * bytes (all under 256).  Modes with bit 4 are of p, whose records the
 * direct path of a SequenceExample takes: their w frames are not empty
 * (but in record 1), and they have u and n. */
static void batch_seeds(const char *dir, int *rc)
{
    static const int64_t ints[6] = {1, 2, 3, 4, 5, 6};
    static const float floats[4] = {1, 2, 3, 4};
    static const char *const words[2] = {"a", "bc"};
    static wbuf in, feats, ex, f, ctx, lists, fl;
    unsigned mode;
    int k;
    for (mode = 0; mode < 32; mode += 3) {
        char name[32];
        int seq = (int)(mode & 1u);
        in.n = 0;
        w_byte(&in, mode);
        w_byte(&in, 1u << (mode % 8));
        w_byte(&in, 5 + mode);
        for (k = 0; k < 5; k++) {
            ex.n = 0;
            if (!seq) {
                feats.n = f.n = 0;
                f_int64_packed(&f, ints + k, 1);
                w_entry(&feats, "a", &f);
                f.n = 0;
                f_int64_packed(&f, ints, (size_t)(k % 3) * 2);
                w_entry(&feats, "r", &f);
                f.n = 0;
                f_bytes(&f, words, (size_t)k % 3);
                w_entry(&feats, "s", &f);
                f.n = 0;
                f_int64_unpacked(&f, ints, (size_t)k);
                w_entry(&feats, "v", &f);
                w_example(&ex, &feats);
            } else {
                ctx.n = lists.n = f.n = fl.n = 0;
                f_int64_packed(&f, ints + k, 1);
                w_entry(&ctx, "id", &f);
                f.n = 0;
                f_bytes(&f, words, (size_t)k % 3);
                w_entry(&ctx, "tags", &f);
                f.n = 0;
                f_float_packed(&f, floats, 2);
                w_len(&fl, 0x0A, f.b, f.n);
                if (k % 2)
                    w_len(&fl, 0x0A, f.b, f.n);
                w_entry(&lists, "x", &fl);
                fl.n = f.n = 0;
                f_bytes(&f, words, 2);
                w_len(&fl, 0x0A, f.b, f.n);
                if (!(mode & 16u) || k == 1) {
                    w_len(&fl, 0x0A, "", 0);
                } else {
                    f.n = 0;
                    f_bytes(&f, words, 1);
                    w_len(&fl, 0x0A, f.b, f.n);
                }
                w_entry(&lists, "w", &fl);
                if (mode & 16u) {
                    fl.n = f.n = 0;
                    f_int64_packed(&f, ints + k, 2);
                    w_len(&fl, 0x0A, f.b, f.n);
                    w_len(&fl, 0x0A, f.b, f.n);
                    w_entry(&lists, "u", &fl);
                    fl.n = f.n = 0;
                    f_int64_packed(&f, ints + k, 1);
                    w_len(&fl, 0x0A, f.b, f.n);
                    w_entry(&lists, "n", &fl);
                }
                w_len(&ex, 0x0A, ctx.b, ctx.n);
                w_len(&ex, 0x12, lists.b, lists.n);
            }
            if (k == 3 && mode > 6)
                ex.b[ex.n / 2] ^= 0x40; /* one bad record */
            w_byte(&in, (unsigned)ex.n);
            w_mem(&in, ex.b, ex.n);
        }
        snprintf(name, sizeof name, "batch-%02u", mode);
        *rc |= write_file(dir, name, 0xff, in.b, in.n);
    }
}

/* fuzz_sync: a mode byte (splits - 1, and 0x80 for FC_CRC_SKIP_CORRUPT),
 * a 16-bit sync offset, then a file: plain records, a record holding a
 * TFRecord stream (the case that can fool a checksum sync), and damaged
 * copies. */
static void sync_seeds(const char *dir, const unsigned char *plain, size_t plain_len, int *rc)
{
    static unsigned char file[8192], inner[4096];
    unsigned mode;
    size_t n = 0, m = 0;
    /* a record whose payload is 5 bytes of a bytes feature, then the plain file */
    memcpy(inner, "\x0a\x20\x12\x1e\x0a", 5);
    memcpy(inner + 5, plain, plain_len);
    m = 5 + plain_len;
    n += fc_record_frame(file + n, sizeof file - n, plain, 9 < plain_len ? 9 : plain_len);
    n += fc_record_frame(file + n, sizeof file - n, inner, m);
    n += fc_record_frame(file + n, sizeof file - n, plain, plain_len < 40 ? plain_len : 40);
    for (mode = 0; mode < 4; mode++) {
        unsigned char head[3];
        static unsigned char seed[8192 + 3];
        char name[32];
        size_t len = n;
        head[0] = (unsigned char)((mode * 3u) | (mode == 3 ? 0x80u : 0u));
        head[1] = (unsigned char)(mode * 17u);
        head[2] = 0;
        memcpy(seed, head, 3);
        memcpy(seed + 3, file, n);
        if (mode == 2)
            seed[3 + 30] ^= 0x04; /* a byte of the embedding record's data */
        if (mode == 3)
            seed[3 + 2] ^= 0x01;  /* the first length */
        snprintf(name, sizeof name, "embedded-%u", mode);
        *rc |= write_file(dir, name, 0xff, seed, len + 3);
        memcpy(seed + 3, plain, plain_len);
        snprintf(name, sizeof name, "plain-%u", mode);
        *rc |= write_file(dir, name, 0xff, seed, plain_len + 3);
    }
}

int main(int argc, char **argv)
{
    static unsigned char out[65536], pl[256];
    const char *rdir, *fdir;
    size_t k, i;
    int rc = 0;
    if (argc != 7) {
        fprintf(stderr,
                "usage: make_seeds READER_DIR FALLBACK_DIR PARSER_DIR SEQ_DIR BATCH_DIR SYNC_DIR\n");
        return 64;
    }
    rdir = argv[1];
    fdir = argv[2];
    parser_seeds(argv[3], &rc);
    seq_seeds(argv[4], &rc);
    batch_seeds(argv[5], &rc);
    for (i = 0; i < sizeof payload_hex / sizeof payload_hex[0]; i++) {
        char name[32];
        size_t n = h_unhex(payload_hex[i], pl);
        snprintf(name, sizeof name, "payload-%02zu", i);
        rc |= write_file(fdir, name, 0xff, pl, n);
    }
    for (k = 0; k < 3; k++) {
        fc_writer w;
        fc_writer_options o;
        char name[32];
        memset(&o, 0, sizeof o);
        o.compression = (fc_compression)k;
        o.work = work;
        o.work_size = sizeof work;
        if (fc_writer_init_mem(&w, out, sizeof out, &o, NULL) != FC_OK)
            return 1;
        for (i = 0; i < sizeof payload_hex / sizeof payload_hex[0]; i++) {
            size_t n = h_unhex(payload_hex[i], pl);
            if (fc_writer_write(&w, pl, n) != FC_OK)
                return 1;
        }
        if (fc_writer_close(&w) != FC_OK)
            return 1;
        /* mode byte: compression k (explicit) and 3 (auto) */
        if (k == 0)
            sync_seeds(argv[6], out, fc_writer_size(&w), &rc);
        snprintf(name, sizeof name, "file-%s", fc_compression_name((fc_compression)k));
        rc |= write_file(rdir, name, (unsigned char)k, out, fc_writer_size(&w));
        snprintf(name, sizeof name, "file-%s-auto", fc_compression_name((fc_compression)k));
        rc |= write_file(rdir, name, 3, out, fc_writer_size(&w));
    }
    /* an 8-byte empty ZLIB stream, as TensorFlow writes a file with no records */
    {
        static const unsigned char empty_zlib[8] = {0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01};
        rc |= write_file(rdir, "empty-zlib", 3, empty_zlib, 8);
        rc |= write_file(rdir, "empty", 3, empty_zlib, 0);
    }
    return rc;
}
