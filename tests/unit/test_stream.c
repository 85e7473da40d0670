/* The push reader (fc_stream): every corpus file, damaged copies of them
 * and compressed ones, pushed in pieces of every kind of size (one byte,
 * random, the whole file), give fc_reader's records, errors and offsets;
 * records come out as soon as their last byte is pushed; the calls out of
 * order are refused. */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <featc/fc.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "harness.h"
#include "stream_check.h"

static unsigned char buf[64u << 20]; /* the corpus' largest record is below 64 MiB */
static unsigned char work[FC_STREAM_WORK_SIZE];

static size_t one(void *st)
{
    (void)st;
    return 1;
}

static size_t upto(void *st) /* 1 to *(size_t *)st */
{
    return 1 + (size_t)(h_rand() % *(size_t *)st);
}

/* The push reader against fc_reader on data, in four chunkings; 1 when all
 * agree.  name: for the messages. */
static int same_pushed(const char *name, const unsigned char *data, size_t len, int bytewise)
{
    sc_outcome want, got;
    size_t sizes[3] = {64, len > 0 ? len : 1, 4096};
    unsigned k;
    int ok = 1;
    sc_read_mem(data, len, FC_COMPRESSION_AUTO, buf, sizeof buf, work, sizeof work, &want);
    for (k = 0; k < 4; k++) {
        if (k == 3 && !bytewise)
            continue;
        if (k < 3)
            sc_read_pushed(data, len, FC_COMPRESSION_AUTO, buf, sizeof buf, work, sizeof work,
                           upto, &sizes[k], &got);
        else
            sc_read_pushed(data, len, FC_COMPRESSION_AUTO, buf, sizeof buf, work, sizeof work,
                           one, NULL, &got);
        if (!sc_same(&want, &got)) {
            CHECK_MSG(0, "%s (chunking %u): reader %llu records, status %d \"%s\"; pushed %llu, "
                         "status %d \"%s\"", name, k, (unsigned long long)want.records,
                      want.status, want.message, (unsigned long long)got.records, got.status,
                      got.message);
            ok = 0;
        }
    }
    return ok;
}

static unsigned char *load(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *p = NULL;
    long n;
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
        fseek(f, 0, SEEK_SET) != 0 || (p = (unsigned char *)malloc((size_t)n + 1)) == NULL ||
        fread(p, 1, (size_t)n, f) != (size_t)n) {
        if (f != NULL)
            fclose(f);
        free(p);
        return NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* Every corpus file, whole and damaged: cut at 12 places, one byte
 * changed at 12 (files up to 1 MiB). */
static void test_corpus_pushed(void)
{
    const char *corpus = getenv("FEATC_CORPUS");
    DIR *d;
    struct dirent *de;
    unsigned files = 0, compressed = 0, damaged = 0, failed = 0;
    CHECK_MSG(corpus != NULL, "FEATC_CORPUS is not set");
    if (corpus == NULL || (d = opendir(corpus)) == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        char path[1024], name[1200];
        unsigned char *data, *copy;
        size_t len, j;
        if (de->d_name[0] == '.' || strncmp(de->d_name, "MANIFEST", 8) == 0 ||
            strcmp(de->d_name, "NOTICE") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", corpus, de->d_name);
        data = load(path, &len);
        CHECK_MSG(data != NULL, "cannot read %s", path);
        if (data == NULL)
            continue;
        files++;
        compressed += len >= 2 && data[0] == 0x1f && data[1] == 0x8b;
        failed += !same_pushed(de->d_name, data, len, len <= (512u << 10));
        copy = (unsigned char *)malloc(len + 1);
        for (j = 0; len <= (1u << 20) && copy != NULL && j < 24; j++) {
            size_t at = len > 0 ? (size_t)(h_rand() % len) : 0, n = len;
            memcpy(copy, data, len);
            if (j < 12) {
                n = at; /* cut */
                snprintf(name, sizeof name, "%s cut at %zu", de->d_name, at);
            } else {
                copy[at] ^= (unsigned char)(1u + h_rand() % 255u);
                snprintf(name, sizeof name, "%s with byte %zu changed", de->d_name, at);
            }
            failed += !same_pushed(name, copy, n, n <= (64u << 10));
            damaged++;
        }
        free(copy);
        free(data);
    }
    closedir(d);
    CHECK_MSG(files >= 33 && compressed >= 7, "%u files, %u GZIP", files, compressed);
    printf("stream: %u corpus files (%u GZIP) and %u damaged copies pushed in pieces: %u "
           "differ from fc_reader\n", files, compressed, damaged, failed);
}

/* A pull source over bytes in memory that gives them in pieces: the first
 * as long as first, then sizes from next_size; it cannot seek, so nothing
 * takes over from ISA-L where it reads a stream wrong. */
typedef struct {
    const unsigned char *data;
    size_t len, at, first;
    size_t (*next_size)(void *);
    void *state;
} piecewise;

static fc_status piece_pull(void *ctx, void *dst, size_t n, size_t *got, fc_error *err)
{
    piecewise *p = (piecewise *)ctx;
    size_t k = p->at == 0 && p->first > 0 ? p->first : p->next_size(p->state);
    (void)err;
    if (k > n)
        k = n;
    if (k > p->len - p->at)
        k = p->len - p->at;
    memcpy(dst, p->data + p->at, k);
    p->at += k;
    *got = k;
    return FC_OK;
}

static unsigned char pull_work[FC_READER_WORK_SIZE]; /* room for ISA-L */

#if defined(FC_WITH_ISAL) && defined(__x86_64__)
#include <dlfcn.h>
#include <isa-l/igzip_lib.h>
/* ISA-L's isal_inflate, watched: the times it was asked to go on with a
 * GZIP header it had begun, which it misreads (its maintainers: give it a
 * whole header at once, or read it with isal_read_gzip_header; featc does
 * the latter).  What the misreading does depends on the stack's old
 * contents, so the test counts the asking itself. */
static unsigned long header_resumed;
int isal_inflate(struct inflate_state *st)
{
    static int (*real)(struct inflate_state *);
    if (real == NULL) {
        void *sym = dlsym(RTLD_NEXT, "isal_inflate");
        memcpy(&real, &sym, sizeof real);
    }
    if (st->crc_flag == ISAL_GZIP && !st->wrapper_flag &&
        (st->block_state != ISAL_BLOCK_NEW_HDR || st->tmp_in_size > 0))
        header_resumed++;
    return real(st);
}
#define HEADER_RESUMED header_resumed
#else
#define HEADER_RESUMED 0ul
#endif

static void read_pulled(piecewise *p, sc_outcome *o)
{
    fc_reader_options opt =
        sc_options(FC_COMPRESSION_AUTO, buf, sizeof buf, pull_work, sizeof pull_work);
    fc_reader r;
    fc_record rec;
    int st;
    memset(o, 0, sizeof *o);
    st = fc_reader_init_pull(&r, piece_pull, p, &opt, NULL);
    while (st == FC_OK && (st = fc_reader_next(&r, &rec)) == FC_OK)
        sc_take(o, &rec);
    sc_end(o, st, fc_reader_error(&r));
}

/* Every GZIP corpus file read as a stream that cannot go back (a pipe's
 * kind), the inflater ISA-L where the build has it, in pieces: the
 * detection's 12 bytes first (a header with a file name then arrives in two
 * reads: ISA-L's own header reading misread such members as deflate data,
 * intel/isa-l#224), then 1 to 64, 1 to 4096, 1 byte, or the rest whole.
 * The records and the end are zlib's over the file in memory. */
static void test_corpus_pulled(void)
{
    const char *corpus = getenv("FEATC_CORPUS");
    DIR *d;
    struct dirent *de;
    unsigned files = 0, failed = 0;
    if (corpus == NULL || (d = opendir(corpus)) == NULL)
        return; /* (test_corpus_pushed fails on it) */
    while ((de = readdir(d)) != NULL) {
        char path[1024];
        unsigned char *data;
        size_t len, sizes[4] = {64, 4096, 1, 0};
        unsigned k;
        sc_outcome want, got;
        snprintf(path, sizeof path, "%s/%s", corpus, de->d_name);
        if (de->d_name[0] == '.' || (data = load(path, &len)) == NULL)
            continue;
        if (len < 2 || data[0] != 0x1f || data[1] != 0x8b) {
            free(data);
            continue;
        }
        files++;
        sc_read_mem(data, len, FC_COMPRESSION_AUTO, buf, sizeof buf, work, sizeof work, &want);
        for (k = 0; k < 4; k++) {
            piecewise p;
            memset(&p, 0, sizeof p);
            p.data = data;
            p.len = len;
            p.first = FC_RECORD_HEADER_SIZE;
            sizes[3] = len;
            p.next_size = k == 2 ? one : upto;
            p.state = &sizes[k];
            read_pulled(&p, &got);
            if (!sc_same(&want, &got)) {
                CHECK_MSG(0, "%s pulled (pieces %u): %llu records, status %d \"%s\"; in memory "
                             "%llu, status %d \"%s\"", de->d_name, k,
                          (unsigned long long)got.records, got.status, got.message,
                          (unsigned long long)want.records, want.status, want.message);
                failed++;
            }
        }
        free(data);
    }
    closedir(d);
    CHECK_MSG(files >= 7, "%u GZIP files", files);
    CHECK_MSG(HEADER_RESUMED == 0, "isal_inflate was asked %lu times to go on with a GZIP header",
              HEADER_RESUMED);
    printf("stream: %u GZIP corpus files pulled in pieces through %s: %u differ from zlib in "
           "memory\n", files, fc_inflate_impl(), failed);
}

/* A file of n records of the given lengths, written by fc_writer. */
static size_t write_records(unsigned char *out, size_t cap, const size_t *lens, size_t n)
{
    fc_writer w;
    fc_writer_options o;
    size_t i, used = 0;
    static unsigned char payload[70000];
    memset(&o, 0, sizeof o);
    for (i = 0; i < sizeof payload; i++)
        payload[i] = (unsigned char)(i * 7u + 3u);
    if (fc_writer_init_mem(&w, out, cap, &o, NULL) != FC_OK)
        return 0;
    for (i = 0; i < n; i++)
        if (fc_writer_write(&w, payload, lens[i]) != FC_OK)
            return 0;
    if (fc_writer_close(&w) != FC_OK)
        return 0;
    used = fc_writer_size(&w);
    return used;
}

/* ZLIB streams (the corpus has GZIP only): whole, cut, with bytes after
 * the stream's end (an error the reader reports after the records). */
static void test_zlib_pushed(void)
{
    static const size_t lens[] = {100, 0, 70000, 5, 1, 300};
    static unsigned char plain[1u << 18], z[1u << 18];
    size_t n = write_records(plain, sizeof plain, lens, 6), k;
    uLongf zn = sizeof z;
    CHECK(n > 0);
    CHECK(compress2(z, &zn, plain, (uLong)n, 6) == Z_OK);
    CHECK(same_pushed("zlib", z, zn, 1));
    for (k = 0; k < 8; k++) /* cut */
        CHECK(same_pushed("zlib cut", z, (size_t)(h_rand() % zn), 1));
    memcpy(z + zn, "tail", 4);
    CHECK(same_pushed("zlib with trailing bytes", z, zn + 4, 1));
}

/* A record is handed out as soon as its last byte is pushed, without
 * waiting for the next piece: plain records, and a GZIP stream pushed whole
 * (the end of its member met with no input after it). */
static void test_records_come_at_once(void)
{
    static const size_t lens[] = {10, 0, 3000, 1, 77};
    static unsigned char file[8192], gz[8192];
    size_t n = write_records(file, sizeof file, lens, 5), at = 0, i;
    fc_reader_options o;
    fc_stream s;
    fc_record rec;
    memset(&o, 0, sizeof o);
    o.buffer = buf;
    o.buffer_size = 4096 + 16;
    CHECK(fc_stream_init(&s, &o, NULL) == FC_OK);
    for (i = 0; i < 5; i++) {
        size_t end = at + lens[i] + FC_RECORD_OVERHEAD;
        while (at < end) { /* the record in pieces of 1 to 5 bytes */
            size_t k = 1 + (size_t)(h_rand() % 5);
            if (k > end - at)
                k = end - at;
            CHECK(fc_stream_next(&s, &rec) == FC_AGAIN);
            CHECK(fc_stream_push(&s, file + at, k) == FC_OK);
            at += k;
        }
        CHECK_MSG(fc_stream_next(&s, &rec) == FC_OK && rec.index == i && rec.length == lens[i],
                  "record %zu", i);
        CHECK(fc_stream_offset(&s) == end);
    }
    CHECK(fc_stream_next(&s, &rec) == FC_AGAIN);
    CHECK(fc_stream_taken(&s) == n);
    CHECK(fc_stream_finish(&s) == FC_OK);
    CHECK(fc_stream_next(&s, &rec) == FC_END);
    {
        z_stream zs;
        memset(&zs, 0, sizeof zs);
        CHECK(deflateInit2(&zs, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY) == Z_OK);
        zs.next_in = file;
        zs.avail_in = (uInt)n;
        zs.next_out = gz;
        zs.avail_out = sizeof gz;
        CHECK(deflate(&zs, Z_FINISH) == Z_STREAM_END);
        o.compression = FC_COMPRESSION_GZIP;
        o.work = work;
        o.work_size = sizeof work;
        CHECK(fc_stream_init(&s, &o, NULL) == FC_OK);
        CHECK(fc_stream_push(&s, gz, zs.total_out) == FC_OK);
        for (i = 0; i < 5; i++)
            CHECK_MSG(fc_stream_next(&s, &rec) == FC_OK && rec.index == i, "gz record %zu", i);
        CHECK(fc_stream_next(&s, &rec) == FC_AGAIN);
        CHECK(fc_stream_finish(&s) == FC_OK);
        CHECK(fc_stream_next(&s, &rec) == FC_END);
        CHECK(strcmp(fc_reader_inflater(&s.reader), "zlib") == 0);
        deflateEnd(&zs);
    }
}

/* A record larger than the buffer: FC_ERR_BUFFER naming the size, as the
 * reader's; calls out of order. */
static void test_limits_and_order(void)
{
    static const size_t lens[] = {1000};
    static unsigned char file[2048];
    static unsigned char small[256];
    size_t n = write_records(file, sizeof file, lens, 1);
    fc_reader_options o;
    fc_stream s;
    fc_record rec;
    memset(&o, 0, sizeof o);
    o.buffer = small;
    o.buffer_size = sizeof small;
    CHECK(fc_stream_init(&s, &o, NULL) == FC_OK);
    CHECK(fc_stream_push(&s, file, n) == FC_OK);
    CHECK(fc_stream_push(&s, file, n) == FC_ERR_STATE); /* the piece is not taken yet */
    CHECK(fc_stream_next(&s, &rec) == FC_ERR_BUFFER);
    CHECK_CONTAINS(fc_stream_error(&s)->message, "needs a buffer of 1016 bytes");
    CHECK(fc_stream_push(NULL, file, 1) == FC_ERR_ARG);
    CHECK(fc_stream_push(&s, NULL, 1) == FC_ERR_ARG);
    CHECK(fc_stream_init(&s, NULL, NULL) == FC_ERR_ARG); /* no buffer */
    memset(&o, 0, sizeof o);
    o.buffer = buf;
    o.buffer_size = 4096;
    CHECK(fc_stream_init(&s, &o, NULL) == FC_OK);
    CHECK(fc_stream_finish(&s) == FC_OK);
    CHECK(fc_stream_push(&s, file, 1) == FC_ERR_STATE); /* after the end */
    CHECK(fc_stream_next(&s, &rec) == FC_END);          /* an empty file */
    o.compression = FC_COMPRESSION_GZIP;                 /* no work area */
    CHECK(fc_stream_init(&s, &o, NULL) == FC_ERR_NO_MEMORY);
}

int main(void)
{
    RUN(test_corpus_pushed);
    RUN(test_corpus_pulled);
    RUN(test_zlib_pushed);
    RUN(test_records_come_at_once);
    RUN(test_limits_and_order);
    return harness_report("stream");
}
