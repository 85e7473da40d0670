/* TFRecord reader and writer: round trips, interoperability with the gzip
 * tool and Python's zlib, truncation and corruption anywhere, TensorFlow's
 * error texts, CRC policies, writer error paths, byte-identical framing. */
#include <featc/fc.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <zlib.h>

#include "harness.h"

#define MAX_RECORDS 64

typedef struct payloads {
    size_t n;
    unsigned char *data[MAX_RECORDS];
    size_t len[MAX_RECORDS];
} payloads;

static char tmpdir[256];

static void payloads_make(payloads *p, const size_t *lens, size_t n)
{
    size_t i;
    p->n = n;
    for (i = 0; i < n; i++) {
        p->len[i] = lens[i];
        p->data[i] = (unsigned char *)malloc(lens[i] > 0 ? lens[i] : 1);
        h_fill_random(p->data[i], lens[i]);
        /* compressible tail half, so ZLIB/GZIP do real work */
        memset(p->data[i] + lens[i] / 2, (int)(i & 0xff), lens[i] - lens[i] / 2);
    }
}

static void payloads_free(payloads *p)
{
    size_t i;
    for (i = 0; i < p->n; i++)
        free(p->data[i]);
    p->n = 0;
}

static size_t framed_size(const payloads *p)
{
    size_t i, n = 0;
    for (i = 0; i < p->n; i++)
        n += p->len[i] + 16;
    return n;
}

/* Writes the payloads into a malloc'd buffer with the memory writer. */
static unsigned char *write_mem(const payloads *p, fc_compression c, size_t *out_len)
{
    size_t cap = framed_size(p) + framed_size(p) / 10 + 1024;
    unsigned char *dst = (unsigned char *)malloc(cap);
    void *work = malloc(FC_DEFLATE_ARENA_SIZE);
    fc_writer_options o;
    fc_writer w;
    size_t i;
    memset(&o, 0, sizeof o);
    o.compression = c;
    o.work = work;
    o.work_size = FC_DEFLATE_ARENA_SIZE;
    CHECK(fc_writer_init_mem(&w, dst, cap, &o, NULL) == FC_OK);
    for (i = 0; i < p->n; i++)
        CHECK(fc_writer_write(&w, p->data[i], p->len[i]) == FC_OK);
    CHECK(fc_writer_close(&w) == FC_OK);
    CHECK(fc_writer_records(&w) == p->n);
    if (c != FC_COMPRESSION_NONE)
        CHECK_MSG(fc_writer_arena_peak(&w) <= FC_DEFLATE_ARENA_SIZE, "deflate peak %zu",
                  fc_writer_arena_peak(&w));
    *out_len = fc_writer_size(&w);
    free(work);
    return dst;
}

typedef struct read_result {
    int status;         /* last status: FC_END or the error */
    size_t count;
    int mismatch;       /* a record differed from the expected payload */
    fc_error err;
    fc_compression detected;
    uint64_t skipped;
} read_result;

/* Reads everything from an initialised reader, growing the buffer on
 * FC_ERR_BUFFER when grow is set, comparing with p when given. */
static read_result drain(fc_reader *r, const payloads *p, int grow, unsigned char **bufp)
{
    read_result res;
    fc_record rec;
    memset(&res, 0, sizeof res);
    for (;;) {
        int s = fc_reader_next(r, &rec);
        if (s == FC_ERR_BUFFER && grow) {
            size_t need = fc_reader_needed(r);
            unsigned char *nb = (unsigned char *)malloc(need);
            CHECK(need > 0);
            CHECK(fc_reader_set_buffer(r, nb, need) == FC_OK);
            free(*bufp);
            *bufp = nb;
            continue;
        }
        if (s != FC_OK) {
            res.status = s;
            res.err = *fc_reader_error(r);
            break;
        }
        if (p != NULL) {
            if (res.count >= p->n || rec.length != p->len[res.count] ||
                (rec.length > 0 && memcmp(rec.data, p->data[res.count], rec.length) != 0))
                res.mismatch = 1;
        }
        res.count++;
    }
    res.detected = fc_reader_compression(r);
    res.skipped = fc_reader_skipped(r);
    return res;
}

/* The work area readers get: FC_READER_WORK_SIZE (ISA-L's inflate, where
 * the runtime has it), or ZLIB_WORK, which leaves them zlib's.  main runs
 * the compressed tests with each. */
#define ZLIB_WORK (FC_INFLATE_ARENA_MIN + 16u * 1024u)
static size_t g_work = FC_READER_WORK_SIZE;

static read_result read_mem(const unsigned char *data, size_t len, fc_compression c,
                            fc_crc_policy pol, const payloads *p, size_t bufsize)
{
    fc_reader_options o;
    fc_reader r;
    read_result res;
    unsigned char *buf = (unsigned char *)malloc(bufsize);
    void *work = malloc(g_work);
    fc_error err;
    memset(&o, 0, sizeof o);
    o.compression = c;
    o.crc_policy = pol;
    o.buffer = buf;
    o.buffer_size = bufsize;
    o.work = work;
    o.work_size = g_work;
    if (fc_reader_init_mem(&r, data, len, &o, &err) != FC_OK) {
        memset(&res, 0, sizeof res);
        res.status = err.status;
        res.err = err;
    } else {
        res = drain(&r, p, 1, &buf);
        CHECK(fc_reader_arena_peak(&r) <= FC_INFLATE_ARENA_SIZE);
    }
    free(buf);
    free(work);
    return res;
}

static read_result read_fd(int fd, fc_compression c, const payloads *p, size_t bufsize,
                           size_t worksize)
{
    fc_reader_options o;
    fc_reader r;
    read_result res;
    unsigned char *buf = (unsigned char *)malloc(bufsize);
    void *work = malloc(worksize);
    memset(&o, 0, sizeof o);
    o.compression = c;
    o.buffer = buf;
    o.buffer_size = bufsize;
    o.work = work;
    o.work_size = worksize;
    CHECK(fc_reader_init_fd(&r, fd, &o, NULL) == FC_OK);
    res = drain(&r, p, 1, &buf);
    free(buf);
    free(work);
    return res;
}

static void write_file(const char *path, const unsigned char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f == NULL)
        return;
    CHECK(fwrite(data, 1, len, f) == len);
    CHECK(fclose(f) == 0);
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *data;
    long n;
    *len = 0;
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    data = (unsigned char *)malloc((size_t)n + 1);
    if (fread(data, 1, (size_t)n, f) != (size_t)n) {
        free(data);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return data;
}

static const char *tpath(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) & 3;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static int run(const char *cmd)
{
    int rc = system(cmd);
    return rc == -1 ? -1 : WEXITSTATUS(rc);
}

/* ------------------------------------------------------------------ cases */

static const size_t mixed_sizes[] = {0, 1, 2, 11, 12, 13, 100, 1000, 4095, 4096, 65536,
                                     200000, 1048576, 0, 7, 1048575, 300};
#define N_MIXED (sizeof mixed_sizes / sizeof mixed_sizes[0])

static void test_roundtrip_memory_all_compressions(void)
{
    static const fc_compression comps[] = {FC_COMPRESSION_NONE, FC_COMPRESSION_ZLIB,
                                           FC_COMPRESSION_GZIP};
    payloads p;
    size_t k;
    payloads_make(&p, mixed_sizes, N_MIXED);
    for (k = 0; k < 3; k++) {
        size_t len;
        unsigned char *data = write_mem(&p, comps[k], &len);
        read_result r1 = read_mem(data, len, comps[k], FC_CRC_VERIFY, &p, 4096);
        read_result r2 = read_mem(data, len, FC_COMPRESSION_AUTO, FC_CRC_VERIFY, &p, 1 << 21);
        CHECK_MSG(r1.status == FC_END && r1.count == p.n && !r1.mismatch, "%s: %s",
                  fc_compression_name(comps[k]), r1.err.message);
        CHECK_MSG(r2.status == FC_END && r2.count == p.n && !r2.mismatch, "%s auto: %s",
                  fc_compression_name(comps[k]), r2.err.message);
        CHECK(r2.detected == comps[k]);
        if (comps[k] == FC_COMPRESSION_NONE)
            CHECK(len == framed_size(&p));
        else
            CHECK(len < framed_size(&p));
        free(data);
    }
    payloads_free(&p);
}

/* Random records of random sizes 0..1 MiB, many seeds. */
static void test_roundtrip_random_sizes(void)
{
    int round;
    for (round = 0; round < 6; round++) {
        size_t lens[24];
        size_t i, len;
        payloads p;
        unsigned char *data;
        fc_compression c = (fc_compression)(round % 3);
        for (i = 0; i < 24; i++) {
            unsigned long long r = h_rand();
            lens[i] = (r & 3) == 0 ? (size_t)(r >> 8) % (1048576 + 1) : (size_t)(r >> 8) % 3000;
        }
        payloads_make(&p, lens, 24);
        data = write_mem(&p, c, &len);
        {
            read_result r = read_mem(data, len, FC_COMPRESSION_AUTO, FC_CRC_VERIFY, &p, 64);
            CHECK_MSG(r.status == FC_END && r.count == 24 && !r.mismatch, "round %d: %s", round,
                      r.err.message);
        }
        free(data);
        payloads_free(&p);
    }
}

/* fd writer -> file -> fd reader, mmap reader; plain fd writer with and
 * without a staging buffer. */
static void test_roundtrip_fd_and_mmap(void)
{
    static const fc_compression comps[] = {FC_COMPRESSION_NONE, FC_COMPRESSION_ZLIB,
                                           FC_COMPRESSION_GZIP};
    payloads p;
    size_t k;
    void *work = malloc(FC_WRITER_WORK_SIZE);
    payloads_make(&p, mixed_sizes, N_MIXED);
    for (k = 0; k < 4; k++) {
        fc_compression c = comps[k % 3];
        const char *path = tpath("rt.tfrecord");
        fc_writer_options wo;
        fc_writer w;
        size_t i;
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        memset(&wo, 0, sizeof wo);
        wo.compression = c;
        if (k != 0) { /* k == 0: plain, unbuffered; k == 3: plain, buffered */
            wo.work = work;
            wo.work_size = FC_WRITER_WORK_SIZE;
        }
        CHECK(fc_writer_init_fd(&w, fd, &wo, NULL) == FC_OK);
        for (i = 0; i < p.n; i++)
            CHECK(fc_writer_write(&w, p.data[i], p.len[i]) == FC_OK);
        CHECK(fc_writer_close(&w) == FC_OK);
        CHECK(close(fd) == 0);

        fd = open(path, O_RDONLY);
        {
            read_result r = read_fd(fd, FC_COMPRESSION_AUTO, &p, 100, g_work);
            CHECK_MSG(r.status == FC_END && r.count == p.n && !r.mismatch, "fd %zu: %s", k,
                      r.err.message);
            CHECK(r.detected == c);
        }
        close(fd);
        {
            fc_mapped_file m;
            read_result r;
            CHECK(fc_map_file(path, &m, NULL) == FC_OK);
            r = read_mem(m.data, m.size, FC_COMPRESSION_AUTO, FC_CRC_VERIFY, &p, 1000);
            CHECK_MSG(r.status == FC_END && r.count == p.n && !r.mismatch, "mmap %zu: %s", k,
                      r.err.message);
            fc_unmap_file(&m);
        }
    }
    free(work);
    payloads_free(&p);
}

/* A record larger than the fd reader's buffer: FC_ERR_BUFFER names the size
 * needed; a larger buffer lets the read go on. */
static void test_buffer_too_small_names_size(void)
{
    static const size_t lens[] = {10, 5000, 20};
    payloads p;
    size_t len;
    unsigned char *data;
    unsigned char small[1024], *big;
    fc_reader_options o;
    fc_reader r;
    fc_record rec;
    int fd;
    payloads_make(&p, lens, 3);
    data = write_mem(&p, FC_COMPRESSION_NONE, &len);
    write_file(tpath("big.tfrecord"), data, len);
    fd = open(tpath("big.tfrecord"), O_RDONLY);
    memset(&o, 0, sizeof o);
    o.buffer = small;
    o.buffer_size = sizeof small;
    CHECK(fc_reader_init_fd(&r, fd, &o, NULL) == FC_OK);
    CHECK(fc_reader_next(&r, &rec) == FC_OK && rec.length == 10);
    CHECK(fc_reader_next(&r, &rec) == FC_ERR_BUFFER);
    CHECK(fc_reader_needed(&r) == 5016);
    CHECK_CONTAINS(fc_reader_error(&r)->message,
                   "record 1 at offset 26 needs a buffer of 5016 bytes (5000 data + 16 framing); "
                   "the reader buffer has 1024");
    big = (unsigned char *)malloc(5016);
    CHECK(fc_reader_set_buffer(&r, big, 5016) == FC_OK);
    CHECK(fc_reader_next(&r, &rec) == FC_OK && rec.length == 5000 &&
          memcmp(rec.data, p.data[1], 5000) == 0);
    CHECK(fc_reader_next(&r, &rec) == FC_OK && rec.length == 20);
    CHECK(fc_reader_next(&r, &rec) == FC_END);
    close(fd);
    free(big);
    free(data);
    payloads_free(&p);
}

/* Files made by the gzip tool (single and concatenated members) and by
 * Python's zlib.compress; and our output read by them. */
static void test_interop_gzip_tool_and_python_zlib(void)
{
    static const size_t lens_a[] = {5, 70000, 0, 123};
    static const size_t lens_b[] = {9, 1, 400000};
    payloads pa, pb, pab;
    size_t la, lb, len, i;
    unsigned char *a, *b, *data;
    char cmd[1600];
    payloads_make(&pa, lens_a, 4);
    payloads_make(&pb, lens_b, 3);
    a = write_mem(&pa, FC_COMPRESSION_NONE, &la);
    b = write_mem(&pb, FC_COMPRESSION_NONE, &lb);
    write_file(tpath("a.tfrecord"), a, la);
    write_file(tpath("b.tfrecord"), b, lb);

    /* gzip tool, one member */
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s'", tpath("a.tfrecord"), tpath("a.gz"));
    CHECK(run(cmd) == 0);
    data = read_file(tpath("a.gz"), &len);
    CHECK(data != NULL && data[0] == 0x1f && data[1] == 0x8b);
    {
        read_result r = read_mem(data, len, FC_COMPRESSION_GZIP, FC_CRC_VERIFY, &pa, 512);
        CHECK_MSG(r.status == FC_END && r.count == 4 && !r.mismatch, "%s", r.err.message);
        r = read_mem(data, len, FC_COMPRESSION_AUTO, FC_CRC_VERIFY, &pa, 512);
        CHECK(r.status == FC_END && r.count == 4 && r.detected == FC_COMPRESSION_GZIP);
    }
    free(data);

    /* two gzip members concatenated: one stream of 7 records */
    snprintf(cmd, sizeof cmd, "gzip -c '%s' > '%s' && gzip -9 -c '%s' >> '%s'",
             tpath("a.tfrecord"), tpath("ab.gz"), tpath("b.tfrecord"), tpath("ab.gz"));
    CHECK(run(cmd) == 0);
    data = read_file(tpath("ab.gz"), &len);
    pab.n = 7;
    for (i = 0; i < 4; i++) {
        pab.data[i] = pa.data[i];
        pab.len[i] = pa.len[i];
    }
    for (i = 0; i < 3; i++) {
        pab.data[4 + i] = pb.data[i];
        pab.len[4 + i] = pb.len[i];
    }
    {
        read_result r = read_mem(data, len, FC_COMPRESSION_AUTO, FC_CRC_VERIFY, &pab, 512);
        CHECK_MSG(r.status == FC_END && r.count == 7 && !r.mismatch, "%s", r.err.message);
    }
    {
        int fd = open(tpath("ab.gz"), O_RDONLY);
        read_result r = read_fd(fd, FC_COMPRESSION_GZIP, &pab, 512, g_work);
        CHECK_MSG(r.status == FC_END && r.count == 7 && !r.mismatch, "%s", r.err.message);
        close(fd);
    }
    free(data);

    /* Python's zlib.compress: a ZLIB stream */
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import sys,zlib; sys.stdout.buffer.write(zlib.compress(open(sys.argv[1],"
             "'rb').read()))\" '%s' > '%s'",
             tpath("b.tfrecord"), tpath("b.zlib"));
    CHECK(run(cmd) == 0);
    data = read_file(tpath("b.zlib"), &len);
    {
        read_result r = read_mem(data, len, FC_COMPRESSION_AUTO, FC_CRC_VERIFY, &pb, 512);
        CHECK_MSG(r.status == FC_END && r.count == 3 && !r.mismatch && r.detected == FC_COMPRESSION_ZLIB,
                  "%s", r.err.message);
    }
    free(data);

    /* Our GZIP output through gzip -dc, our ZLIB output through zlib.decompress:
     * both give back exactly the uncompressed framing. */
    data = write_mem(&pa, FC_COMPRESSION_GZIP, &len);
    write_file(tpath("ours.gz"), data, len);
    free(data);
    snprintf(cmd, sizeof cmd, "gzip -dc '%s' | cmp -s - '%s'", tpath("ours.gz"),
             tpath("a.tfrecord"));
    CHECK(run(cmd) == 0);
    data = write_mem(&pa, FC_COMPRESSION_ZLIB, &len);
    write_file(tpath("ours.zlib"), data, len);
    free(data);
    snprintf(cmd, sizeof cmd,
             "python3 -c \"import sys,zlib; sys.stdout.buffer.write(zlib.decompress(open(sys.argv[1],"
             "'rb').read()))\" '%s' | cmp -s - '%s'",
             tpath("ours.zlib"), tpath("a.tfrecord"));
    CHECK(run(cmd) == 0);
    /* gzip header as TensorFlow writes it: 1f 8b 08 00, mtime 0, no name, OS 3 */
    data = write_mem(&pa, FC_COMPRESSION_GZIP, &len);
    CHECK(data[0] == 0x1f && data[1] == 0x8b && data[2] == 8 && data[3] == 0);
    CHECK(data[4] == 0 && data[5] == 0 && data[6] == 0 && data[7] == 0 && data[9] == 3);
    free(data);

    free(a);
    free(b);
    payloads_free(&pa);
    payloads_free(&pb);
}

/* Cutting a file at every byte offset: at a record boundary it is a shorter
 * valid file; anywhere else a clear error, never a silent short read. */
static void test_truncation_every_offset(void)
{
    static const size_t lens[] = {3, 0, 17, 5};
    static const fc_compression comps[] = {FC_COMPRESSION_NONE, FC_COMPRESSION_ZLIB,
                                           FC_COMPRESSION_GZIP};
    payloads p;
    size_t k, cut, len;
    payloads_make(&p, lens, 4);
    for (k = 0; k < 3; k++) {
        unsigned char *data = write_mem(&p, comps[k], &len);
        for (cut = 0; cut < len; cut++) {
            fc_compression c = comps[k];
            read_result r = read_mem(data, cut, c, FC_CRC_VERIFY, NULL, 256);
            if (c == FC_COMPRESSION_NONE) {
                size_t boundary = 0, n = 0;
                while (n < p.n && boundary + p.len[n] + 16 <= cut)
                    boundary += p.len[n++] + 16;
                if (boundary == cut) {
                    CHECK_MSG(r.status == FC_END && r.count == n, "cut %zu", cut);
                } else {
                    CHECK_MSG(r.status == FC_ERR_TRUNCATED && r.count == n, "cut %zu: %d %s", cut,
                              r.status, r.err.message);
                    CHECK_CONTAINS(r.err.message, "truncated record at ");
                }
            } else {
                CHECK_MSG(r.status != FC_END && r.status != FC_OK, "%s cut %zu read as complete",
                          fc_compression_name(c), cut);
                CHECK_MSG(r.count <= p.n, "cut %zu", cut);
            }
        }
        free(data);
    }
    payloads_free(&p);
}

/* One flipped bit anywhere: uncompressed files always fail with a CRC error;
 * compressed files fail, or (a flip in gzip header fields no checksum
 * covers, such as mtime) read back exactly the original records. */
static void test_bit_flip_everywhere(void)
{
    static const size_t lens[] = {4, 0, 30};
    static const fc_compression comps[] = {FC_COMPRESSION_NONE, FC_COMPRESSION_ZLIB,
                                           FC_COMPRESSION_GZIP};
    payloads p;
    size_t k, len, bit;
    payloads_make(&p, lens, 3);
    for (k = 0; k < 3; k++) {
        unsigned char *data = write_mem(&p, comps[k], &len);
        for (bit = 0; bit < len * 8; bit++) {
            read_result r;
            data[bit / 8] ^= (unsigned char)(1u << (bit % 8));
            r = read_mem(data, len, comps[k], FC_CRC_VERIFY, &p, 256);
            if (comps[k] == FC_COMPRESSION_NONE)
                CHECK_MSG(r.status == FC_ERR_CORRUPT, "bit %zu: status %d", bit, r.status);
            else
                CHECK_MSG((r.status != FC_END) || (r.count == p.n && !r.mismatch),
                          "%s bit %zu went unnoticed", fc_compression_name(comps[k]), bit);
            data[bit / 8] ^= (unsigned char)(1u << (bit % 8));
        }
        free(data);
    }
    payloads_free(&p);
}

/* Whether readers with the default work area inflate with ISA-L, and that
 * a small work area gives zlib.  A build with FC_WITH_ISAL on x86-64 must:
 * the runtime references ISA-L weakly, so a link that drops libisal
 * (--as-needed) would otherwise fall back to zlib unseen. */
static const char *inflater_with(size_t work_size)
{
    static const size_t lens[] = {10};
    payloads p;
    size_t len;
    const char *name = "(init failed)";
    unsigned char *data, buf[256], *work = (unsigned char *)malloc(work_size);
    fc_reader_options o;
    fc_reader r;
    fc_record rec;
    payloads_make(&p, lens, 1);
    data = write_mem(&p, FC_COMPRESSION_GZIP, &len);
    memset(&o, 0, sizeof o);
    o.compression = FC_COMPRESSION_GZIP;
    o.buffer = buf;
    o.buffer_size = sizeof buf;
    o.work = work;
    o.work_size = work_size;
    if (fc_reader_init_mem(&r, data, len, &o, NULL) == FC_OK) {
        CHECK(fc_reader_next(&r, &rec) == FC_OK);
        name = fc_reader_inflater(&r);
        while (fc_reader_next(&r, &rec) == FC_OK)
            ;
        CHECK(strcmp(name, "isa-l") == 0 ? fc_reader_arena_peak(&r) > FC_INFLATE_ARENA_MIN
                                         : fc_reader_arena_peak(&r) <= FC_INFLATE_ARENA_MIN);
    }
    free(data);
    free(work);
    payloads_free(&p);
    return name;
}

static int isal_in_use(void)
{
    return strcmp(inflater_with(FC_READER_WORK_SIZE), "isa-l") == 0;
}

static void test_inflater_choice(void)
{
    int expected = 0;
#if defined(FC_WITH_ISAL) && defined(__x86_64__) && !defined(FC_NO_ZLIB)
    expected = 1;
#endif
    CHECK_MSG(isal_in_use() == expected, "readers inflate with %s; this build %s ISA-L (%s)",
              inflater_with(FC_READER_WORK_SIZE), expected ? "has" : "has not", fc_inflate_impl());
    CHECK(strcmp(fc_inflate_impl(), expected ? "isa-l+zlib" : "zlib") == 0);
    CHECK_MSG(strcmp(inflater_with(ZLIB_WORK), "zlib") == 0, "a %u-byte work area: %s",
              (unsigned)ZLIB_WORK, inflater_with(ZLIB_WORK));
}

/* ISA-L and zlib on the same damaged streams: every bit flipped and every
 * truncation of a ZLIB and a GZIP file of three records, and the GZIP one
 * with garbage after it.  The same status, the same records before the
 * error, the same error offsets; the same message but for zlib's reason
 * after "inflate() failed with error -3: " (zlib tells more kinds of bad
 * deflate data apart: docs/semantics.md, the differences). */
static void same_on_both(const unsigned char *data, size_t len, fc_compression c,
                         const payloads *p, const char *what, size_t at, unsigned *texts_differ)
{
    read_result a, b;
    const char *pa, *pb;
    g_work = FC_READER_WORK_SIZE;
    a = read_mem(data, len, c, FC_CRC_VERIFY, p, 256);
    g_work = ZLIB_WORK;
    b = read_mem(data, len, c, FC_CRC_VERIFY, p, 256);
    g_work = FC_READER_WORK_SIZE;
    CHECK_MSG(a.status == b.status && a.count == b.count && a.mismatch == b.mismatch,
              "%s %zu: ISA-L status %d after %zu records, zlib %d after %zu (%s | %s)", what, at,
              a.status, a.count, b.status, b.count, a.err.message, b.err.message);
    if (a.status == FC_END || a.status != b.status)
        return;
    CHECK_MSG(a.err.offset == b.err.offset && a.err.record == b.err.record,
              "%s %zu: offsets differ: %s | %s", what, at, a.err.message, b.err.message);
    pa = strstr(a.err.message, "error -3: ");
    pb = strstr(b.err.message, "error -3: ");
    if (pa != NULL && pb != NULL) { /* the same but for zlib's reason, up to " (" */
        const char *ea = strstr(pa, " ("), *eb = strstr(pb, " (");
        CHECK_MSG(ea != NULL && eb != NULL && strcmp(ea, eb) == 0 &&
                      pa - a.err.message == pb - b.err.message &&
                      memcmp(a.err.message, b.err.message, (size_t)(pa - a.err.message)) == 0,
                  "%s %zu: %s | %s", what, at, a.err.message, b.err.message);
        if (ea != NULL && eb != NULL && (ea - pa != eb - pb || memcmp(pa, pb, (size_t)(ea - pa)) != 0))
            ++*texts_differ;
    } else {
        CHECK_MSG(strcmp(a.err.message, b.err.message) == 0, "%s %zu: %s | %s", what, at,
                  a.err.message, b.err.message);
    }
}

static void test_isal_and_zlib_agree(void)
{
    static const size_t lens[] = {40, 0, 300};
    static const fc_compression comps[] = {FC_COMPRESSION_ZLIB, FC_COMPRESSION_GZIP};
    payloads p;
    size_t k, len, i;
    unsigned differ = 0, cases = 0;
    if (!isal_in_use()) {
        printf("record: this runtime inflates with zlib alone: nothing to compare\n");
        return;
    }
    payloads_make(&p, lens, 3);
    for (k = 0; k < 2; k++) {
        unsigned char *data = write_mem(&p, comps[k], &len), *more;
        const char *name = fc_compression_name(comps[k]);
        for (i = 0; i < len * 8; i++, cases++) {
            data[i / 8] ^= (unsigned char)(1u << (i % 8));
            same_on_both(data, len, comps[k], &p, name, i, &differ);
            data[i / 8] ^= (unsigned char)(1u << (i % 8));
        }
        for (i = 0; i <= len; i++, cases++)
            same_on_both(data, i, comps[k], &p, name, i, &differ);
        /* a bad check value cut short: zlib finds it with the first four
         * trailer bytes (GZIP: the CRC-32; ZLIB: the Adler-32), in the call
         * that gives the last records, where ISA-L waits for the rest */
        data[len - (comps[k] == FC_COMPRESSION_GZIP ? 8 : 4)] ^= 0x01;
        for (i = len - 8; i <= len; i++, cases++)
            same_on_both(data, i, comps[k], &p, "bad check, cut", i, &differ);
        data[len - (comps[k] == FC_COMPRESSION_GZIP ? 8 : 4)] ^= 0x01;
        if (comps[k] == FC_COMPRESSION_ZLIB) {
            /* a preset dictionary asked for (FDICT, then a dictionary id):
             * zlib's Z_NEED_DICT, where ISA-L returns a code of its own */
            unsigned char *dict = (unsigned char *)malloc(len + 4);
            dict[0] = 0x78;
            dict[1] = 0x3f; /* FLG with FDICT; (0x78 * 256 + 0x3f) % 31 == 0 */
            memset(dict + 2, 0, 4);
            memcpy(dict + 6, data + 2, len - 2);
            same_on_both(dict, len + 4, comps[k], &p, "preset dictionary", 0, &differ);
            cases++;
            free(dict);
        }
        more = (unsigned char *)malloc(len + 3);
        memcpy(more, data, len);
        memcpy(more + len, "xyz", 3);
        same_on_both(more, len + 3, comps[k], &p, name, len, &differ);
        cases++;
        free(more);
        free(data);
    }
    printf("record: ISA-L and zlib alike on %u damaged streams; zlib's reason differs in %u\n",
           cases, differ);
    payloads_free(&p);
}

/* TensorFlow's texts (docs/tf-semantics.md 4.2) plus what TensorFlow leaves out. */
static void test_error_texts(void)
{
    static const size_t lens[] = {8, 8};
    payloads p;
    size_t len;
    unsigned char *data;
    read_result r;
    payloads_make(&p, lens, 2);
    data = write_mem(&p, FC_COMPRESSION_NONE, &len);

    data[8] ^= 1; /* length CRC of record 0 */
    r = read_mem(data, len, FC_COMPRESSION_NONE, FC_CRC_VERIFY, NULL, 256);
    CHECK(r.status == FC_ERR_CORRUPT && r.count == 0 && r.err.offset == 0 && r.err.record == 0);
    CHECK_CONTAINS(r.err.message, "corrupted record at 0 (Is this even a TFRecord file?): record 0: "
                                  "length CRC mismatch (stored ");
    data[8] ^= 1;

    data[12] ^= 0x80; /* data of record 0: TF prints the data offset, 12 */
    r = read_mem(data, len, FC_COMPRESSION_NONE, FC_CRC_VERIFY, NULL, 256);
    CHECK(r.status == FC_ERR_CORRUPT && r.err.offset == 12);
    CHECK_CONTAINS(r.err.message, "corrupted record at 12: record 0 (header at offset 0, 8 data "
                                  "bytes): data CRC mismatch");
    data[12] ^= 0x80;

    data[24 + 8] ^= 4; /* length CRC of record 1, at offset 24: no hint there */
    r = read_mem(data, len, FC_COMPRESSION_NONE, FC_CRC_VERIFY, NULL, 256);
    CHECK(r.status == FC_ERR_CORRUPT && r.count == 1);
    CHECK_CONTAINS(r.err.message, "corrupted record at 24: record 1: length CRC mismatch");
    CHECK(strstr(r.err.message, "Is this") == NULL);
    data[24 + 8] ^= 4;

    r = read_mem(data, len - 1, FC_COMPRESSION_NONE, FC_CRC_VERIFY, NULL, 256);
    CHECK(r.status == FC_ERR_TRUNCATED && r.count == 1);
    CHECK_CONTAINS(r.err.message, "truncated record at 24: record 1 declares 8 data bytes and a "
                                  "4-byte CRC after its header, but the stream ends 11 bytes after "
                                  "the header");

    r = read_mem(data, 24 + 5, FC_COMPRESSION_NONE, FC_CRC_VERIFY, NULL, 256);
    CHECK(r.status == FC_ERR_TRUNCATED && r.count == 1);
    CHECK_CONTAINS(r.err.message, "truncated record at 24: record 1: the stream ends inside the "
                                  "12-byte record header (5 bytes left)");
    free(data);

    /* 12 bytes of trailing garbage: a corrupted header */
    data = write_mem(&p, FC_COMPRESSION_NONE, &len);
    {
        unsigned char *more = (unsigned char *)malloc(len + 12);
        memcpy(more, data, len);
        memset(more + len, 0x55, 12);
        r = read_mem(more, len + 12, FC_COMPRESSION_NONE, FC_CRC_VERIFY, NULL, 256);
        CHECK(r.status == FC_ERR_CORRUPT && r.count == 2);
        CHECK_CONTAINS(r.err.message, "corrupted record at 48: record 2");
        free(more);
    }
    free(data);

    /* A length with a valid CRC that cannot fit in memory: record size too large */
    {
        unsigned char hdr[12];
        uint64_t huge = UINT64_MAX - 3;
        int i;
        for (i = 0; i < 8; i++)
            hdr[i] = (unsigned char)(huge >> (8 * i));
        {
            uint32_t c = fc_crc32c_mask(fc_crc32c(0, hdr, 8));
            for (i = 0; i < 4; i++)
                hdr[8 + i] = (unsigned char)(c >> (8 * i));
        }
        r = read_mem(hdr, 12, FC_COMPRESSION_NONE, FC_CRC_VERIFY, NULL, 256);
        CHECK(r.status == FC_ERR_TOO_LARGE);
        CHECK_CONTAINS(r.err.message, "record size too large (Is this even a TFRecord file?)");
    }
    /* A plausible length with a valid CRC in a short file: truncated */
    {
        unsigned char rec[40];
        fc_record_frame(rec, sizeof rec, "abcdefghijklmnopqrstuvwx", 24);
        r = read_mem(rec, 20, FC_COMPRESSION_NONE, FC_CRC_VERIFY, NULL, 256);
        CHECK(r.status == FC_ERR_TRUNCATED);
    }
    payloads_free(&p);
}

static void test_crc_policies(void)
{
    static const size_t lens[] = {10, 20, 30};
    payloads p, expect;
    size_t len;
    unsigned char *data;
    read_result r;
    payloads_make(&p, lens, 3);
    data = write_mem(&p, FC_COMPRESSION_NONE, &len);
    data[26 + 12 + 5] ^= 0x10; /* data of record 1 */

    r = read_mem(data, len, FC_COMPRESSION_NONE, FC_CRC_VERIFY, NULL, 256);
    CHECK(r.status == FC_ERR_CORRUPT && r.count == 1);

    expect.n = 2;
    expect.data[0] = p.data[0];
    expect.len[0] = p.len[0];
    expect.data[1] = p.data[2];
    expect.len[1] = p.len[2];
    r = read_mem(data, len, FC_COMPRESSION_NONE, FC_CRC_SKIP_CORRUPT, &expect, 256);
    CHECK(r.status == FC_END && r.count == 2 && !r.mismatch && r.skipped == 1);

    r = read_mem(data, len, FC_COMPRESSION_NONE, FC_CRC_NONE, NULL, 256);
    CHECK(r.status == FC_END && r.count == 3);

    /* skip cannot skip a broken length: the boundary is lost */
    data[26 + 12 + 5] ^= 0x10;
    data[26 + 3] ^= 0x01;
    r = read_mem(data, len, FC_COMPRESSION_NONE, FC_CRC_SKIP_CORRUPT, NULL, 256);
    CHECK(r.status == FC_ERR_CORRUPT && r.count == 1);
    free(data);
    payloads_free(&p);
}

/* bytes compressed as one ZLIB stream or GZIP member, into a malloc'd buffer. */
static unsigned char *deflate_raw_bytes(const unsigned char *src, size_t len, fc_compression c,
                                        size_t *out_len)
{
    z_stream z;
    size_t cap = len + len / 10 + 1024;
    unsigned char *dst = (unsigned char *)malloc(cap);
    memset(&z, 0, sizeof z);
    CHECK(deflateInit2(&z, 6, Z_DEFLATED, c == FC_COMPRESSION_GZIP ? 31 : 15, 8,
                       Z_DEFAULT_STRATEGY) == Z_OK);
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)len;
    z.next_out = dst;
    z.avail_out = (uInt)cap;
    CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
    *out_len = cap - z.avail_out;
    deflateEnd(&z);
    return dst;
}

/* Runs of short records are checked four at a time ahead of the one handed
 * out.  A damaged length CRC, data byte or data CRC in any one of 40
 * records (each place of each group of four, and the last records, which
 * are not a whole group) must still stop the reader exactly at that record
 * with the same text, after handing out every record before it; under
 * FC_CRC_SKIP_CORRUPT a damaged data or data CRC skips that record only.
 * Over memory, and through ZLIB and GZIP with buffers small enough that
 * runs are cut by refills. */
static void test_damage_in_runs_of_short_records(void)
{
    enum { N = 40 };
    static const fc_compression comps[] = {FC_COMPRESSION_NONE, FC_COMPRESSION_ZLIB,
                                           FC_COMPRESSION_GZIP};
    static const size_t bufsizes[] = {256, 1000, 65536};
    size_t lens[N], at[N + 1], k, j, zone, c, b;
    payloads p, expect;
    unsigned char *framed;
    size_t framed_len;
    for (k = 0; k < N; k++)
        lens[k] = k % 13 == 5 ? 0 : (k * 37) % 150 + 1;
    payloads_make(&p, lens, N);
    framed = write_mem(&p, FC_COMPRESSION_NONE, &framed_len);
    for (at[0] = 0, k = 0; k < N; k++)
        at[k + 1] = at[k] + lens[k] + 16;
    CHECK(at[N] == framed_len);
    for (j = 0; j < N; j++) {
        for (zone = 0; zone < 3; zone++) {
            size_t where;
            char want[96];
            if (zone == 1 && lens[j] == 0)
                continue;
            where = zone == 0 ? at[j] + 9 : zone == 1 ? at[j] + 12 + lens[j] / 2
                                                      : at[j] + 12 + lens[j] + 2;
            framed[where] ^= 0x04;
            snprintf(want, sizeof want, "corrupted record at %zu%s: record %zu",
                     zone == 0 ? at[j] : at[j] + 12,
                     zone == 0 && j == 0 ? " (Is this even a TFRecord file?)" : "", j);
            expect.n = 0;
            for (k = 0; k < N; k++) {
                if (k == j)
                    continue;
                expect.data[expect.n] = p.data[k];
                expect.len[expect.n++] = p.len[k];
            }
            for (c = 0; c < 3; c++) {
                size_t len = framed_len;
                unsigned char *data = comps[c] == FC_COMPRESSION_NONE
                                          ? framed
                                          : deflate_raw_bytes(framed, framed_len, comps[c], &len);
                for (b = 0; b < 3; b++) {
                    read_result r = read_mem(data, len, comps[c], FC_CRC_VERIFY, &p, bufsizes[b]);
                    CHECK_MSG(r.status == FC_ERR_CORRUPT && r.count == j && !r.mismatch,
                              "%s buffer %zu, record %zu zone %zu: status %d after %zu records",
                              fc_compression_name(comps[c]), bufsizes[b], j, zone, r.status,
                              r.count);
                    CHECK_CONTAINS(r.err.message, want);
                    r = read_mem(data, len, comps[c], FC_CRC_SKIP_CORRUPT,
                                 zone == 0 ? &p : &expect, bufsizes[b]);
                    if (zone == 0) /* a broken length cannot be skipped */
                        CHECK(r.status == FC_ERR_CORRUPT && r.count == j && !r.mismatch);
                    else
                        CHECK_MSG(r.status == FC_END && r.count == N - 1 && r.skipped == 1 &&
                                      !r.mismatch,
                                  "skip: %s buffer %zu, record %zu: status %d, %zu records",
                                  fc_compression_name(comps[c]), bufsizes[b], j, r.status,
                                  r.count);
                    r = read_mem(data, len, comps[c], FC_CRC_NONE, NULL, bufsizes[b]);
                    CHECK(r.status == FC_END && r.count == N);
                }
                if (data != framed)
                    free(data);
            }
            framed[where] ^= 0x04;
        }
    }
    CHECK(read_mem(framed, framed_len, FC_COMPRESSION_NONE, FC_CRC_VERIFY, &p, 256).count == N);
    free(framed);
    payloads_free(&p);
}

/* Reader skip bookkeeping exposes the reason for the last skipped record. */
static void test_skip_reports_reason(void)
{
    static const size_t lens[] = {3, 3};
    payloads p;
    size_t len;
    unsigned char *data;
    fc_reader r;
    fc_reader_options o;
    fc_record rec;
    payloads_make(&p, lens, 2);
    data = write_mem(&p, FC_COMPRESSION_NONE, &len);
    data[12] ^= 1;
    memset(&o, 0, sizeof o);
    o.crc_policy = FC_CRC_SKIP_CORRUPT;
    CHECK(fc_reader_init_mem(&r, data, len, &o, NULL) == FC_OK);
    CHECK(fc_reader_next(&r, &rec) == FC_OK && rec.index == 1 && rec.offset == 19);
    CHECK(fc_reader_next(&r, &rec) == FC_END);
    CHECK(fc_reader_skipped(&r) == 1);
    CHECK_CONTAINS(fc_reader_last_skip(&r)->message, "corrupted record at 12: record 0");
    free(data);
    payloads_free(&p);
}

static void test_compressed_stream_errors(void)
{
    static const size_t lens[] = {50, 60};
    payloads p;
    size_t len;
    unsigned char *data, *more;
    read_result r;
    payloads_make(&p, lens, 2);

    /* bytes after a ZLIB stream: TF ignores them, we report them */
    data = write_mem(&p, FC_COMPRESSION_ZLIB, &len);
    more = (unsigned char *)malloc(len + 3);
    memcpy(more, data, len);
    memcpy(more + len, "xyz", 3);
    r = read_mem(more, len + 3, FC_COMPRESSION_ZLIB, FC_CRC_VERIFY, &p, 256);
    CHECK(r.status == FC_ERR_INFLATE && r.count == 2);
    CHECK_CONTAINS(r.err.message, "trailing data after the end of the ZLIB stream");
    free(more);
    free(data);

    /* garbage after a gzip member: TF's inflate error text */
    data = write_mem(&p, FC_COMPRESSION_GZIP, &len);
    more = (unsigned char *)malloc(len + 3);
    memcpy(more, data, len);
    memcpy(more + len, "xyz", 3);
    r = read_mem(more, len + 3, FC_COMPRESSION_GZIP, FC_CRC_VERIFY, &p, 256);
    CHECK_MSG(r.status == FC_ERR_INFLATE && r.count == 2, "%d %zu %s", r.status, r.count,
              r.err.message);
    CHECK_CONTAINS(r.err.message, "inflate() failed with error -3: incorrect header check");
    free(more);

    /* cut short: never a clean end */
    r = read_mem(data, len - 4, FC_COMPRESSION_GZIP, FC_CRC_VERIFY, &p, 256);
    CHECK(r.status == FC_ERR_TRUNCATED || r.status == FC_ERR_INFLATE);
    CHECK_CONTAINS(r.err.message, "GZIP stream, compressed offset");

    /* declared compression that is not there */
    r = read_mem(data, len, FC_COMPRESSION_ZLIB, FC_CRC_VERIFY, NULL, 256);
    CHECK(r.status == FC_ERR_INFLATE);
    CHECK_CONTAINS(r.err.message, "inflate() failed with error -3");
    free(data);
    payloads_free(&p);
}

static void test_reader_init_errors(void)
{
    fc_reader r;
    fc_reader_options o;
    fc_error err;
    unsigned char buf[256], work[100];
    memset(&o, 0, sizeof o);
    o.compression = FC_COMPRESSION_GZIP;
    o.buffer = buf;
    o.buffer_size = sizeof buf;
    o.work = work;
    o.work_size = sizeof work;
    CHECK(fc_reader_init_mem(&r, "x", 1, &o, &err) == FC_ERR_NO_MEMORY);
    CHECK_CONTAINS(err.message, "a compressed reader needs a work area of at least");
    o.compression = FC_COMPRESSION_NONE;
    o.buffer = NULL;
    CHECK(fc_reader_init_fd(&r, 0, &o, &err) == FC_ERR_ARG);
    CHECK(fc_reader_init_fd(&r, -1, NULL, &err) == FC_ERR_ARG);
    /* an empty memory file: zero records */
    CHECK(fc_reader_init_mem(&r, NULL, 0, NULL, &err) == FC_OK);
    {
        fc_record rec;
        CHECK(fc_reader_next(&r, &rec) == FC_END);
    }
}

static void test_writer_errors(void)
{
    fc_writer w;
    fc_writer_options o;
    fc_error err;
    unsigned char dst[64];
    void *work = malloc(FC_WRITER_WORK_SIZE);
    int fd;
    /* memory full: the record is not written, earlier ones stay */
    CHECK(fc_writer_init_mem(&w, dst, sizeof dst, NULL, NULL) == FC_OK);
    CHECK(fc_writer_write(&w, "0123456789", 10) == FC_OK);
    CHECK(fc_writer_write(&w, "0123456789012345678901234567890123456789", 40) == FC_ERR_NO_SPACE);
    CHECK(fc_writer_size(&w) == 26);
    CHECK_CONTAINS(fc_writer_error(&w)->message, "output buffer full: record 1 needs 56 more bytes, 38 of 64 left");
    CHECK(fc_writer_write(&w, "abc", 3) == FC_OK);
    CHECK(fc_writer_close(&w) == FC_OK);
    /* after close: TensorFlow's text; a second close is fine */
    CHECK(fc_writer_write(&w, "abc", 3) == FC_ERR_CLOSED);
    CHECK_CONTAINS(fc_writer_error(&w)->message, "Writer not initialized or previously closed");
    CHECK(fc_writer_flush(&w) == FC_ERR_CLOSED);
    CHECK(fc_writer_close(&w) == FC_OK);
    {
        read_result r = read_mem(dst, fc_writer_size(&w), FC_COMPRESSION_NONE, FC_CRC_VERIFY, NULL, 256);
        CHECK(r.status == FC_END && r.count == 2);
    }

    /* a full device: the error reaches the caller, unbuffered at once,
     * buffered and compressed at flush or close */
    fd = open("/dev/full", O_WRONLY);
    if (fd >= 0) {
        memset(&o, 0, sizeof o);
        CHECK(fc_writer_init_fd(&w, fd, &o, NULL) == FC_OK);
        CHECK(fc_writer_write(&w, "abc", 3) == FC_ERR_IO);
        CHECK_CONTAINS(fc_writer_error(&w)->message, "write failed after 0 bytes (errno ");
        CHECK(fc_writer_error(&w)->sys_errno != 0);
        CHECK(fc_writer_write(&w, "abc", 3) == FC_ERR_IO); /* sticky */
        CHECK(fc_writer_close(&w) == FC_ERR_IO);

        o.work = work;
        o.work_size = 4096;
        CHECK(fc_writer_init_fd(&w, fd, &o, NULL) == FC_OK);
        CHECK(fc_writer_write(&w, "abc", 3) == FC_OK);
        CHECK(fc_writer_flush(&w) == FC_ERR_IO);

        o.compression = FC_COMPRESSION_GZIP;
        o.work_size = FC_WRITER_WORK_SIZE;
        CHECK(fc_writer_init_fd(&w, fd, &o, NULL) == FC_OK);
        CHECK(fc_writer_write(&w, "abc", 3) == FC_OK);
        CHECK(fc_writer_close(&w) == FC_ERR_IO);
        close(fd);
    } else {
        CHECK_MSG(0, "cannot open /dev/full");
    }
    /* bad descriptor */
    memset(&o, 0, sizeof o);
    CHECK(fc_writer_init_fd(&w, 1000000, &o, NULL) == FC_OK);
    CHECK(fc_writer_write(&w, "abc", 3) == FC_ERR_IO);
    /* too little work area, bad level, AUTO */
    o.compression = FC_COMPRESSION_ZLIB;
    o.work = work;
    o.work_size = 1000;
    CHECK(fc_writer_init_mem(&w, dst, sizeof dst, &o, &err) == FC_ERR_NO_MEMORY);
    CHECK_CONTAINS(err.message, "a compressing writer needs a work area of at least");
    o.work_size = FC_DEFLATE_ARENA_SIZE;
    o.level = 12;
    CHECK(fc_writer_init_mem(&w, dst, sizeof dst, &o, &err) == FC_ERR_ARG);
    o.level = 0;
    o.compression = FC_COMPRESSION_AUTO;
    CHECK(fc_writer_init_mem(&w, dst, sizeof dst, &o, &err) == FC_ERR_ARG);
    /* compressed output that does not fit in memory */
    o.compression = FC_COMPRESSION_GZIP;
    o.level = FC_LEVEL_STORE;
    CHECK(fc_writer_init_mem(&w, dst, sizeof dst, &o, NULL) == FC_OK);
    {
        unsigned char big[200];
        h_fill_random(big, sizeof big);
        CHECK(fc_writer_write(&w, big, sizeof big) == FC_OK || fc_writer_error(&w)->status == FC_ERR_NO_SPACE);
        CHECK(fc_writer_close(&w) == FC_ERR_NO_SPACE);
    }
    free(work);
}

/* The writer frames exactly as TensorFlow: re-writing the payloads of every
 * uncompressed corpus file (written by TensorFlow and others) gives the
 * file back byte for byte. */
/* A file-size limit of `bytes` standing in for a full disk (SIGXFSZ
 * ignored, so that write() fails with EFBIG); undone by fsize_restore. */
typedef struct fsize_limit {
    struct rlimit old;
    void (*oldsig)(int);
} fsize_limit;

static int fsize_set(fsize_limit *l, rlim_t bytes)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_FSIZE, &l->old) != 0)
        return -1;
    lim = l->old;
    lim.rlim_cur = bytes;
    l->oldsig = signal(SIGXFSZ, SIG_IGN);
    return setrlimit(RLIMIT_FSIZE, &lim);
}

static void fsize_restore(fsize_limit *l)
{
    CHECK(setrlimit(RLIMIT_FSIZE, &l->old) == 0);
    signal(SIGXFSZ, l->oldsig);
}

/* A disk that fills up mid-file (a file-size limit stands in for it), with
 * records small and larger than the writer's buffer: the failing call says
 * how many records reached the file whole and which accepted ones were
 * lost; the file holds exactly those, whole and in order, then the start of
 * a cut one; every later call fails with the same error. */
/* An uncompressed fd writer keeps whole records in its buffer.  Records
 * whose sizes leave fewer than the 16 framing bytes free at the end of the
 * buffer (here 64 bytes: 40 + 16 = 56, 8 left; then 3 + 16 = 19) must
 * drain it first, never write past it: a canary after the work area, and
 * every record read back. */
static void test_writer_buffer_tail(void)
{
    static const size_t lens[] = {40, 3, 0, 45, 1, 30, 17, 48, 2, 47, 49, 0, 33};
    unsigned char area[64 + 64], recs[13][64];
    size_t k, i;
    char path[] = "/tmp/featc-tail-XXXXXX";
    fc_writer_options o;
    fc_writer w;
    payloads p;
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    if (fd < 0)
        return;
    unlink(path);
    memset(area + 64, 0xaa, 64);
    memset(&o, 0, sizeof o);
    o.work = area;
    o.work_size = 64;
    CHECK(fc_writer_init_fd(&w, fd, &o, NULL) == FC_OK);
    for (k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        h_fill_random(recs[k], lens[k]);
        p.data[k] = recs[k];
        p.len[k] = lens[k];
        CHECK(fc_writer_write(&w, recs[k], lens[k]) == FC_OK);
    }
    CHECK(fc_writer_close(&w) == FC_OK);
    for (i = 64; i < sizeof area; i++)
        if (area[i] != 0xaa)
            break;
    CHECK_MSG(i == sizeof area, "the writer wrote past its 64-byte buffer");
    p.n = k;
    CHECK(lseek(fd, 0, SEEK_SET) == 0);
    {
        read_result r = read_fd(fd, FC_COMPRESSION_NONE, &p, 256, FC_READER_WORK_SIZE);
        CHECK(r.status == FC_END && r.count == k && !r.mismatch);
    }
    close(fd);
}

static void test_writer_full_disk(void)
{
    static unsigned char work[16384], rec[40000];
    char path[600], want[200];
    fsize_limit lim;
    fc_writer w;
    fc_writer_options o;
    fc_status st = FC_OK;
    uint64_t failed_at = 0, durable, i;
    int fd;
    snprintf(path, sizeof path, "%s/full.tfrecord", tmpdir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || fsize_set(&lim, 200000) != 0) {
        CHECK(0); /* cannot open the file or set its size limit */
        if (fd >= 0)
            close(fd);
        return;
    }
    memset(&o, 0, sizeof o);
    o.work = work;
    o.work_size = sizeof work;
    CHECK(fc_writer_init_fd(&w, fd, &o, NULL) == FC_OK);
    for (i = 0; i < 5000; i++) {
        size_t len = i % 41 == 40 ? 30000 : (size_t)(i * 37 % 3000); /* some past the buffer */
        memset(rec, (int)(i & 0xff), len);
        st = fc_writer_write(&w, rec, len);
        if (st != FC_OK) {
            failed_at = i;
            break;
        }
    }
    fsize_restore(&lim);
    CHECK(st == FC_ERR_IO);
    durable = fc_writer_durable(&w);
    CHECK(durable > 0 && durable <= failed_at);
    snprintf(want, sizeof want, ": %llu records reached the file whole", (unsigned long long)durable);
    CHECK_CONTAINS(fc_writer_error(&w)->message, want);
    if (durable < failed_at) {
        snprintf(want, sizeof want, "; records %llu to %llu, accepted before, were lost",
                 (unsigned long long)durable, (unsigned long long)failed_at - 1);
        CHECK_CONTAINS(fc_writer_error(&w)->message, want);
    }
    snprintf(want, sizeof want, "; record %llu was not written", (unsigned long long)failed_at);
    CHECK_CONTAINS(fc_writer_error(&w)->message, want);
    CHECK(fc_writer_error(&w)->sys_errno == EFBIG);
    CHECK(fc_writer_write(&w, rec, 1) == FC_ERR_IO); /* refused from now on */
    CHECK(fc_writer_flush(&w) == FC_ERR_IO);
    CHECK(fc_writer_close(&w) == FC_ERR_IO);
    close(fd);
    { /* the file: exactly the durable records, whole, then a cut one */
        fc_mapped_file map;
        fc_reader_options ro;
        fc_reader r;
        fc_record rc;
        uint64_t n = 0;
        int bad = 0;
        CHECK(fc_map_file(path, &map, NULL) == FC_OK);
        memset(&ro, 0, sizeof ro);
        CHECK(fc_reader_init_mem(&r, map.data, map.size, &ro, NULL) == FC_OK);
        while ((st = fc_reader_next(&r, &rc)) == FC_OK) {
            size_t len = n % 41 == 40 ? 30000 : (size_t)(n * 37 % 3000);
            if (rc.length != len || (len > 0 && (rc.data[0] != (n & 0xff) ||
                                                 rc.data[len - 1] != (n & 0xff))))
                bad = 1;
            n++;
        }
        CHECK(!bad);
        CHECK(n == durable);
        CHECK(st == FC_ERR_TRUNCATED || st == FC_END);
        fc_unmap_file(&map);
    }
}

/* The same for a GZIP writer, flushed every 50 records: the failing call
 * says how many records, those before the last successful flush, can be
 * read back; the file gives back at least those, whole and in order, then
 * ends in a cut compressed stream. */
static unsigned char fill_byte(uint64_t rec, size_t k)
{
    uint64_t x = (rec + 1) * 0x9E3779B97F4A7C15ull + k * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (unsigned char)(x * 0x94D049BB133111EBull >> 56); /* incompressible */
}

static void test_writer_full_disk_gzip(void)
{
    static unsigned char rec[3000];
    unsigned char *work = (unsigned char *)malloc(FC_WRITER_WORK_SIZE);
    unsigned char *rwork = (unsigned char *)malloc(FC_READER_WORK_SIZE);
    static unsigned char rbuf[8192];
    char path[600], want[200];
    fsize_limit lim;
    fc_writer w;
    fc_writer_options o;
    fc_status st = FC_OK;
    uint64_t failed_at = 0, durable = 0, i;
    int fd;
    snprintf(path, sizeof path, "%s/full.tfrecord.gz", tmpdir);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || work == NULL || rwork == NULL || fsize_set(&lim, 200000) != 0) {
        CHECK(0); /* cannot open the file, allocate, or set its size limit */
        if (fd >= 0)
            close(fd);
        free(work);
        free(rwork);
        return;
    }
    memset(&o, 0, sizeof o);
    o.compression = FC_COMPRESSION_GZIP;
    o.work = work;
    o.work_size = FC_WRITER_WORK_SIZE;
    CHECK(fc_writer_init_fd(&w, fd, &o, NULL) == FC_OK);
    for (i = 0; i < 5000; i++) {
        size_t len = (size_t)(i * 37 % 3000), k;
        for (k = 0; k < len; k++)
            rec[k] = fill_byte(i, k);
        st = fc_writer_write(&w, rec, len);
        if (st == FC_OK && i % 50 == 49)
            st = fc_writer_flush(&w);
        if (st != FC_OK) {
            failed_at = i;
            break;
        }
    }
    fsize_restore(&lim);
    CHECK(st == FC_ERR_IO);
    durable = fc_writer_durable(&w);
    CHECK(durable > 0 && durable % 50 == 0 && durable <= failed_at);
    snprintf(want, sizeof want, ": %llu records, those accepted before the last flush, can be read back",
             (unsigned long long)durable);
    CHECK_CONTAINS(fc_writer_error(&w)->message, want);
    CHECK_CONTAINS(fc_writer_error(&w)->message, "(the compressed stream is cut after ");
    CHECK(fc_writer_error(&w)->sys_errno == EFBIG);
    CHECK(fc_writer_write(&w, rec, 1) == FC_ERR_IO); /* refused from now on */
    CHECK(fc_writer_close(&w) == FC_ERR_IO);
    close(fd);
    { /* the file: at least the durable records, whole, then a cut stream */
        fc_reader_options ro;
        fc_reader r;
        fc_record rc;
        uint64_t n = 0;
        int bad = 0;
        fd = open(path, O_RDONLY);
        memset(&ro, 0, sizeof ro);
        ro.compression = FC_COMPRESSION_GZIP;
        ro.buffer = rbuf;
        ro.buffer_size = sizeof rbuf;
        ro.work = rwork;
        ro.work_size = FC_READER_WORK_SIZE;
        CHECK(fd >= 0 && fc_reader_init_fd(&r, fd, &ro, NULL) == FC_OK);
        while (fd >= 0 && (st = fc_reader_next(&r, &rc)) == FC_OK) {
            size_t len = (size_t)(n * 37 % 3000), k;
            if (rc.length != len)
                bad = 1;
            for (k = 0; k < rc.length && !bad; k++)
                bad = rc.data[k] != fill_byte(n, k);
            n++;
        }
        CHECK(!bad);
        CHECK(n >= durable && n <= failed_at);
        CHECK(st != FC_OK && st != FC_END); /* the stream is cut */
        if (fd >= 0)
            close(fd);
    }
    free(work);
    free(rwork);
}

static void test_corpus_rewrite_is_byte_identical(void)
{
    static const char *const files[] = {
        "pwnall-tfrecord__singles.tfrecords", "pytorch-data__example.tfrecord",
        "tf-ecosystem__tf-records_part-m-00000", "tfrecord_lite__test.tfrecord",
        "tfx__mnist.tfrecord", "lingvo__wmt14_ende_wpm_32k_test.tfrecord",
        "pytorch-data__sequence_example.tfrecord", "magenta__tfrecord_iterator_test.tfrecord",
        "deepmind-research__sketchy_example_data.tfrecords"};
    const char *corpus = getenv("FEATC_CORPUS");
    size_t k;
    CHECK_MSG(corpus != NULL, "FEATC_CORPUS is not set");
    if (corpus == NULL)
        return;
    for (k = 0; k < sizeof files / sizeof files[0]; k++) {
        char path[1024];
        fc_mapped_file m;
        fc_reader r;
        fc_writer w;
        fc_record rec;
        unsigned char *out;
        int s;
        snprintf(path, sizeof path, "%s/%s", corpus, files[k]);
        CHECK_MSG(fc_map_file(path, &m, NULL) == FC_OK, "%s", path);
        out = (unsigned char *)malloc(m.size + 1);
        CHECK(fc_reader_init_mem(&r, m.data, m.size, NULL, NULL) == FC_OK);
        CHECK(fc_writer_init_mem(&w, out, m.size, NULL, NULL) == FC_OK);
        while ((s = fc_reader_next(&r, &rec)) == FC_OK)
            CHECK(fc_writer_write(&w, rec.data, rec.length) == FC_OK);
        CHECK(s == FC_END);
        CHECK(fc_writer_close(&w) == FC_OK);
        CHECK_MSG(fc_writer_size(&w) == m.size && memcmp(out, m.data, m.size) == 0, "%s",
                  files[k]);
        free(out);
        fc_unmap_file(&m);
    }
}

/* What a reader makes of a file: records, a digest of their bytes, the
 * final status and message, and the inflater that ran. */
typedef struct {
    uint64_t records, digest;
    int status;
    char message[sizeof ((fc_error *)0)->message];
    const char *inflater;
} file_read;

static file_read read_whole(const unsigned char *data, size_t len, size_t work_size)
{
    static unsigned char buf[64u << 20]; /* the corpus' largest record is below 64 MiB */
    file_read f;
    fc_reader_options o;
    fc_reader r;
    fc_record rec;
    unsigned char *work = (unsigned char *)malloc(work_size);
    memset(&f, 0, sizeof f);
    memset(&o, 0, sizeof o);
    o.compression = FC_COMPRESSION_AUTO;
    o.buffer = buf;
    o.buffer_size = sizeof buf;
    o.work = work;
    o.work_size = work_size;
    f.status = fc_reader_init_mem(&r, data, len, &o, NULL);
    if (f.status == FC_OK) {
        while ((f.status = fc_reader_next(&r, &rec)) == FC_OK) {
            f.records++;
            f.digest = f.digest * 31u + fc_crc32c(0, rec.data, rec.length) + rec.length;
        }
        f.inflater = fc_reader_inflater(&r);
        if (f.status != FC_END)
            memcpy(f.message, fc_reader_error(&r)->message, sizeof f.message);
    }
    free(work);
    return f;
}

/* Every file of the corpus through both inflaters: the same records, the
 * same end (the damaged files' errors included).  With ISA-L in use, every
 * compressed file must have been read by it. */
static void test_corpus_on_both_inflaters(void)
{
    const char *corpus = getenv("FEATC_CORPUS");
    DIR *d;
    struct dirent *de;
    unsigned files = 0, compressed = 0, by_isal = 0;
    int isal = isal_in_use();
    CHECK_MSG(corpus != NULL, "FEATC_CORPUS is not set");
    if (corpus == NULL || (d = opendir(corpus)) == NULL) {
        CHECK_MSG(0, "cannot list %s", corpus != NULL ? corpus : "(null)");
        return;
    }
    while ((de = readdir(d)) != NULL) {
        char path[1024];
        fc_mapped_file m;
        file_read a, b;
        if (de->d_name[0] == '.' || strncmp(de->d_name, "MANIFEST", 8) == 0 ||
            strcmp(de->d_name, "NOTICE") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", corpus, de->d_name);
        CHECK_MSG(fc_map_file(path, &m, NULL) == FC_OK, "%s", path);
        a = read_whole((const unsigned char *)m.data, m.size, FC_READER_WORK_SIZE);
        b = read_whole((const unsigned char *)m.data, m.size, ZLIB_WORK);
        fc_unmap_file(&m);
        files++;
        CHECK_MSG(a.records == b.records && a.digest == b.digest && a.status == b.status &&
                      strcmp(a.message, b.message) == 0,
                  "%s: %s read %llu records (status %d: %s), %s %llu (status %d: %s)",
                  de->d_name, a.inflater ? a.inflater : "plain", (unsigned long long)a.records,
                  a.status, a.message, b.inflater ? b.inflater : "plain",
                  (unsigned long long)b.records, b.status, b.message);
        if (b.inflater != NULL) {
            compressed++;
            CHECK_MSG(strcmp(b.inflater, "zlib") == 0, "%s: %s", de->d_name, b.inflater);
            /* (zlib rereads a member ISA-L found damaged records in) */
            by_isal += a.inflater != NULL &&
                       (strcmp(a.inflater, "isa-l") == 0 || (isal && a.status != FC_END));
        }
    }
    closedir(d);
    CHECK_MSG(files >= 33 && compressed >= 7, "%u files, %u compressed", files, compressed);
    CHECK_MSG(by_isal == (isal ? compressed : 0), "%u of %u compressed files read by ISA-L",
              by_isal, compressed);
    printf("record: %u corpus files, %u compressed, read alike by both inflaters\n", files,
           compressed);
}

/* Streaming from a pipe (no mmap, no seeking), compressed, tiny reads. */
static void test_pipe_streaming(void)
{
    static const size_t lens[] = {100, 0, 70000, 5};
    payloads p;
    size_t len;
    unsigned char *data;
    int fds[2];
    pid_t pid;
    payloads_make(&p, lens, 4);
    data = write_mem(&p, FC_COMPRESSION_GZIP, &len);
    CHECK(pipe(fds) == 0);
    pid = fork();
    if (pid == 0) {
        size_t off = 0;
        close(fds[0]);
        while (off < len) { /* dribble 7 bytes at a time */
            size_t n = len - off < 7 ? len - off : 7;
            if (write(fds[1], data + off, n) != (ssize_t)n)
                _exit(1);
            off += n;
        }
        _exit(0);
    }
    close(fds[1]);
    {
        read_result r = read_fd(fds[0], FC_COMPRESSION_AUTO, &p, 128, g_work);
        CHECK_MSG(r.status == FC_END && r.count == 4 && !r.mismatch, "%s", r.err.message);
        CHECK(r.detected == FC_COMPRESSION_GZIP);
    }
    close(fds[0]);
    waitpid(pid, NULL, 0);
    free(data);
    payloads_free(&p);
}

static void test_compression_names(void)
{
    fc_compression c;
    CHECK(fc_compression_parse("", &c) == FC_OK && c == FC_COMPRESSION_NONE);
    CHECK(fc_compression_parse("GZIP", &c) == FC_OK && c == FC_COMPRESSION_GZIP);
    CHECK(fc_compression_parse("zlib", &c) == FC_OK && c == FC_COMPRESSION_ZLIB);
    CHECK(fc_compression_parse("Auto", &c) == FC_OK && c == FC_COMPRESSION_AUTO);
    CHECK(fc_compression_parse("SNAPPY", &c) == FC_ERR_ARG);
    CHECK(strcmp(fc_compression_name(FC_COMPRESSION_GZIP), "GZIP") == 0);
    CHECK(strcmp(fc_strerror(FC_ERR_CORRUPT), "corrupted record") == 0);
    CHECK(strcmp(fc_status_name(FC_ERR_TRUNCATED), "FC_ERR_TRUNCATED") == 0);
    CHECK(strcmp(fc_strerror(999), "unknown status") == 0);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/featc-test-XXXXXX", t != NULL ? t : "/tmp");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    RUN(test_roundtrip_memory_all_compressions);
    RUN(test_roundtrip_random_sizes);
    RUN(test_roundtrip_fd_and_mmap);
    RUN(test_buffer_too_small_names_size);
    RUN(test_interop_gzip_tool_and_python_zlib);
    RUN(test_truncation_every_offset);
    RUN(test_bit_flip_everywhere);
    RUN(test_error_texts);
    RUN(test_crc_policies);
    RUN(test_skip_reports_reason);
    RUN(test_damage_in_runs_of_short_records);
    RUN(test_compressed_stream_errors);
    RUN(test_reader_init_errors);
    RUN(test_writer_errors);
    RUN(test_writer_buffer_tail);
    RUN(test_writer_full_disk);
    RUN(test_writer_full_disk_gzip);
    RUN(test_corpus_rewrite_is_byte_identical);
    RUN(test_pipe_streaming);
    RUN(test_compression_names);
    RUN(test_inflater_choice);
    RUN(test_isal_and_zlib_agree);
    RUN(test_corpus_on_both_inflaters);
    if (isal_in_use()) { /* the compressed tests again, on zlib's path */
        printf("record: again with zlib's inflate\n");
        g_work = ZLIB_WORK;
        RUN(test_roundtrip_memory_all_compressions);
        RUN(test_roundtrip_random_sizes);
        RUN(test_roundtrip_fd_and_mmap);
        RUN(test_interop_gzip_tool_and_python_zlib);
        RUN(test_truncation_every_offset);
        RUN(test_bit_flip_everywhere);
        RUN(test_compressed_stream_errors);
        RUN(test_pipe_streaming);
        g_work = FC_READER_WORK_SIZE;
    }
    {
        char cmd[600];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        (void)run(cmd);
    }
    return harness_report("record");
}
