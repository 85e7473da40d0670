/* Proof that the runtime's read and write paths never allocate.
 *
 * malloc, calloc, realloc, free, posix_memalign, aligned_alloc and memalign
 * are interposed (this executable's definitions win over glibc's, for calls
 * from the runtime and from libz alike) and counted while "armed".  Each case
 * arms the counter around initialisation and the whole read or write loop,
 * over real corpus files and every reader kind.  The first case proves the
 * interposition counts at all, so this test can fail.
 *
 * Built without sanitizers (ASan owns malloc) and with glibc (__libc_malloc).
 */
#include <featc/fc.h>

#include <fcntl.h>
#include <malloc.h>
#include <unistd.h>

#include "harness.h"

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t n);

static volatile int armed;
static volatile long allocations;

void *malloc(size_t n)
{
    if (armed)
        allocations++;
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    if (armed)
        allocations++;
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    if (armed)
        allocations++;
    return __libc_realloc(p, n);
}

void free(void *p)
{
    if (armed && p != NULL)
        allocations++;
    __libc_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (armed)
        allocations++;
    *out = __libc_memalign(align, n);
    return *out != NULL ? 0 : 12;
}

void *aligned_alloc(size_t align, size_t n)
{
    if (armed)
        allocations++;
    return __libc_memalign(align, n);
}

void *memalign(size_t align, size_t n)
{
    if (armed)
        allocations++;
    return __libc_memalign(align, n);
}

static void arm(void)
{
    allocations = 0;
    armed = 1;
}

static long disarm(void)
{
    armed = 0;
    return allocations;
}

/* Caller-owned memory, static: nothing below allocates it. */
static unsigned char record_buf[2u << 20];
static unsigned char work[FC_WRITER_WORK_SIZE];
static unsigned char out_buf[4u << 20];
static char corpus_path[1024];

static const char *corpus_file(const char *name)
{
    const char *corpus = getenv("FEATC_CORPUS");
    snprintf(corpus_path, sizeof corpus_path, "%s/%s", corpus != NULL ? corpus : ".", name);
    return corpus_path;
}

static fc_reader_options reader_opts(fc_compression c, fc_crc_policy p)
{
    fc_reader_options o;
    memset(&o, 0, sizeof o);
    o.compression = c;
    o.crc_policy = p;
    o.buffer = record_buf;
    o.buffer_size = sizeof record_buf;
    o.work = work;
    o.work_size = FC_READER_WORK_SIZE;
    return o;
}

static long read_all_mapped(const char *name, fc_crc_policy pol, size_t *count)
{
    fc_mapped_file m;
    fc_reader r;
    fc_record rec;
    fc_reader_options o = reader_opts(FC_COMPRESSION_AUTO, pol);
    int s;
    long n;
    *count = 0;
    arm();
    s = fc_map_file(corpus_file(name), &m, NULL);
    if (s == FC_OK && fc_reader_init_mem(&r, m.data, m.size, &o, NULL) == FC_OK) {
        while ((s = fc_reader_next(&r, &rec)) == FC_OK)
            (*count)++;
    }
    fc_unmap_file(&m);
    n = disarm();
    CHECK_MSG(s == FC_END, "%s: status %d", name, s);
    return n;
}

/* Stored through a volatile so that the compiler cannot elide the pair
 * (clang removes an unused malloc/free). */
static void *volatile escape;

static void test_interposition_counts(void)
{
    arm();
    escape = malloc(16);
    free(escape);
    CHECK(disarm() == 2);
}

static void test_mmap_plain_corpus(void)
{
    size_t n;
    CHECK(read_all_mapped("tfx__mnist.tfrecord", FC_CRC_VERIFY, &n) == 0);
    CHECK(n == 1000);
    CHECK(read_all_mapped("deepmind-research__sketchy_example_data.tfrecords", FC_CRC_VERIFY, &n) == 0);
    CHECK(n == 4);
}

static void test_mmap_compressed_corpus(void)
{
    size_t n;
    CHECK(read_all_mapped("tfx__csv_example_gen_Split-eval_data_tfrecord-00000-of-00012.gz",
                          FC_CRC_VERIFY, &n) == 0);
    CHECK(n == 424);
    CHECK(read_all_mapped("basenji__cage10-train-00000-of-00100.tfrecord", FC_CRC_VERIFY, &n) == 0);
    CHECK(n == 10);
    CHECK(read_all_mapped("tfx__tfrecord_sequence_Split-eval_data_tfrecord_eval.gz",
                          FC_CRC_SKIP_CORRUPT, &n) == 0);
    CHECK(n == 4500);
}

static void test_fd_streaming(void)
{
    static const char *const names[] = {"baskerville__mm10_test-3.tfr", "tfx__mnist.tfrecord",
                                        "deepmind-research__tetrominoes_mini.tfrecords"};
    size_t k;
    for (k = 0; k < 3; k++) {
        fc_reader r;
        fc_record rec;
        fc_reader_options o = reader_opts(FC_COMPRESSION_AUTO, FC_CRC_VERIFY);
        int fd, s = FC_ERR_IO;
        size_t n = 0;
        arm();
        fd = open(corpus_file(names[k]), O_RDONLY);
        if (fd >= 0 && fc_reader_init_fd(&r, fd, &o, NULL) == FC_OK)
            while ((s = fc_reader_next(&r, &rec)) == FC_OK)
                n++;
        if (fd >= 0)
            close(fd);
        CHECK_MSG(disarm() == 0, "%s", names[k]);
        CHECK_MSG(s == FC_END && n > 0, "%s: %d", names[k], s);
    }
}

/* Error paths compose their messages without allocating either. */
static void test_error_paths(void)
{
    {
        fc_mapped_file m;
        fc_reader r;
        fc_record rec;
        fc_reader_options o = reader_opts(FC_COMPRESSION_AUTO, FC_CRC_VERIFY);
        int s1 = FC_OK, s2 = FC_OK;
        arm();
        if (fc_map_file(corpus_file("tf-models-CRLF-DAMAGED__pets_examples.record"), &m, NULL) == FC_OK &&
            fc_reader_init_mem(&r, m.data, m.size, &o, NULL) == FC_OK)
            s1 = fc_reader_next(&r, &rec);
        fc_unmap_file(&m);
        if (fc_map_file(corpus_file("tf-models-CRLF-DAMAGED__snapshot_serengeti_sequence_examples.record"),
                        &m, NULL) == FC_OK &&
            fc_reader_init_mem(&r, m.data, m.size, &o, NULL) == FC_OK)
            s2 = fc_reader_next(&r, &rec);
        fc_unmap_file(&m);
        CHECK(disarm() == 0);
        CHECK(s1 == FC_ERR_CORRUPT && s2 == FC_ERR_TRUNCATED);
    }
}

static void test_writers(void)
{
    static const fc_compression comps[] = {FC_COMPRESSION_NONE, FC_COMPRESSION_ZLIB,
                                           FC_COMPRESSION_GZIP};
    static unsigned char payload[100000];
    size_t k, i;
    h_fill_random(payload, sizeof payload);
    for (k = 0; k < 3; k++) {
        fc_writer w;
        fc_writer_options o;
        int fd;
        memset(&o, 0, sizeof o);
        o.compression = comps[k];
        o.work = work;
        o.work_size = FC_DEFLATE_ARENA_SIZE;
        arm();
        CHECK(fc_writer_init_mem(&w, out_buf, sizeof out_buf, &o, NULL) == FC_OK);
        for (i = 0; i < 20; i++)
            CHECK(fc_writer_write(&w, payload, 1000 * i) == FC_OK);
        CHECK(fc_writer_close(&w) == FC_OK);
        o.work_size = FC_WRITER_WORK_SIZE;
        fd = open("/dev/null", O_WRONLY);
        CHECK(fc_writer_init_fd(&w, fd, &o, NULL) == FC_OK);
        for (i = 0; i < 20; i++)
            CHECK(fc_writer_write(&w, payload, 5000 * i) == FC_OK);
        CHECK(fc_writer_flush(&w) == FC_OK);
        CHECK(fc_writer_close(&w) == FC_OK);
        close(fd);
        CHECK_MSG(disarm() == 0, "%s", fc_compression_name(comps[k]));
    }
}

int main(void)
{
    if (getenv("FEATC_CORPUS") == NULL) {
        fprintf(stderr, "test_nomalloc: FEATC_CORPUS is not set\n");
        return 2;
    }
    RUN(test_interposition_counts);
    RUN(test_mmap_plain_corpus);
    RUN(test_mmap_compressed_corpus);
    RUN(test_fd_streaming);
    RUN(test_error_paths);
    RUN(test_writers);
    return harness_report("nomalloc");
}
