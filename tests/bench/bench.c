/* make bench, step 2: featc's generated parsers against protobuf-c, C++
 * protobuf and nanopb, and against the CRC-verified framing walk alone, on
 * the corpora gen wrote; then CRC-32C and GZIP reading.
 *
 *   bench DIR [REPS]
 *
 * Every contender reads the same bytes, held in memory, through the same
 * CRC-verifying reader (fc_reader over memory), and fills the same struct.
 * A first, untimed pass per contender checksums every record's struct: the
 * checksums must agree, or the benchmark fails.  Then REPS (default 7, at
 * least 5) timed passes per contender, interleaved (one pass of each in
 * turn), and the median is reported.  Exit status 1 on a checksum mismatch
 * or a read error; timings never fail it.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>
#include <isa-l/igzip_lib.h>

#include "clock.h"
#include <featc/fc_pool.h>

#include "bench.h"
#include "tutorial.h"
#include "wide.h"
#include "photo.h"
#include "clip.h"

#define MAX_REPS 101

typedef struct corpus {
    const char *name;
    const char *file;
    const char *what;
    bench_msg msg;
    int (*parse)(void *out, const void *data, size_t len, fc_error *err);
    const uint8_t *data;
    size_t size;
    uint64_t records;
} corpus;

enum { C_FEATC, C_PROTOBUF_C, C_CPP, C_NANOPB, C_WALK, NCONTENDERS };

static const char *const contender_name[NCONTENDERS] = {
    "featc", "protobuf-c", "C++ protobuf", "nanopb", "CRC-only walk"};

static const bench_peer *const peers[NCONTENDERS] = {
    NULL, &bench_peer_protobuf_c, &bench_peer_cpp, &bench_peer_nanopb, NULL};

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* DIR/FILE mapped into memory (the runtime's fc_map_file); the untimed
 * checksum pass brings every page in before the timed passes. */
static fc_mapped_file load(const char *dir, const char *file)
{
    char path[4096];
    fc_mapped_file map;
    fc_error err;
    snprintf(path, sizeof path, "%s/%s", dir, file);
    if (fc_map_file(path, &map, &err) != FC_OK) {
        fprintf(stderr, "bench: %s\n", err.message);
        exit(1);
    }
    return map;
}

static volatile uint64_t sink;

/* One pass over the corpus; with sum, the checksum of every record. */
static int run(corpus *c, int who, void *state, uint64_t *sum)
{
    fc_reader r;
    fc_reader_options opt;
    fc_record rec;
    fc_error err;
    fc_status st;
    uint64_t n = 0, acc = 0;
    memset(&opt, 0, sizeof opt);
    opt.crc_policy = FC_CRC_VERIFY;
    if (fc_reader_init_mem(&r, c->data, c->size, &opt, &err) != FC_OK) {
        fprintf(stderr, "bench: %s: %s\n", c->file, err.message);
        return -1;
    }
    while ((st = fc_reader_next(&r, &rec)) == FC_OK) {
        const char *why = NULL;
        if (sum != NULL && who != C_WALK) {
            if (c->msg.md)
                c->msg.md->init(c->msg.out);
            else
                c->msg.sd->init(c->msg.out);
        }
        if (who == C_FEATC) {
            if (c->parse(c->msg.out, rec.data, rec.length, &err) != FC_OK)
                why = err.message;
        } else if (who == C_WALK) {
            acc += rec.length;
        } else if (peers[who]->parse(state, &c->msg, rec.data, rec.length, &why) != 0) {
            if (why == NULL)
                why = "parse failed";
        }
        if (why != NULL) {
            fprintf(stderr, "bench: %s: %s: record %llu: %s\n", c->file, contender_name[who],
                    (unsigned long long)rec.index, why);
            return -1;
        }
        if (sum != NULL)
            *sum = bench_mix(*sum, who == C_WALK ? rec.length : bench_checksum(&c->msg));
        n++;
    }
    if (st != FC_END) {
        fprintf(stderr, "bench: %s: %s\n", c->file, fc_reader_error(&r)->message);
        return -1;
    }
    sink += acc + *(const uint8_t *)c->msg.out;
    c->records = n;
    return 0;
}

/* make bench's chain (tests/bench/chain.py): a line per corpus of the
 * rates measured here, MB/s of the file's bytes; NULL: not asked for. */
static FILE *chain;

static int bench_corpus(corpus *c, int reps, double *featc_mbs)
{
    void *state[NCONTENDERS] = {NULL};
    double t[NCONTENDERS][MAX_REPS], med[NCONTENDERS];
    uint64_t sum[NCONTENDERS];
    int who, rep, ok = 1;
    double best_peer = 0;
    const char *best_name = "";

    for (who = 0; who < NCONTENDERS; who++) {
        if (peers[who] != NULL && (state[who] = peers[who]->prepare(&c->msg)) == NULL)
            return -1;
        sum[who] = 1;
        if (run(c, who, state[who], &sum[who]) != 0)
            return -1;
    }
    for (rep = 0; rep < reps; rep++)
        for (who = 0; who < NCONTENDERS; who++) {
            double t0 = now();
            if (run(c, who, state[who], NULL) != 0)
                return -1;
            t[who][rep] = now() - t0;
        }
    for (who = 0; who < NCONTENDERS; who++) {
        med[who] = median(t[who], reps);
        if (peers[who] != NULL)
            peers[who]->finish(state[who]);
    }

    printf("\n%s: %s\n", c->name, c->what);
    printf("  %llu records, %.1f MB in memory\n", (unsigned long long)c->records,
           (double)c->size / 1e6);
    printf("  %-14s %10s %12s %12s %18s\n", "contender", "MB/s", "records/s", "ns/record",
           "checksum");
    for (who = 0; who < NCONTENDERS; who++) {
        double mbs = (double)c->size / med[who] / 1e6;
        int same = who == C_WALK || sum[who] == sum[C_FEATC];
        printf("  %-14s %10.1f %12.0f %12.1f   %016llx%s\n", contender_name[who], mbs,
               (double)c->records / med[who], med[who] * 1e9 / (double)c->records,
               (unsigned long long)sum[who], same ? "" : "  MISMATCH");
        if (!same)
            ok = 0;
        if (peers[who] != NULL && mbs > best_peer) {
            best_peer = mbs;
            best_name = contender_name[who];
        }
    }
    *featc_mbs = (double)c->size / med[C_FEATC] / 1e6;
    if (chain != NULL)
        fprintf(chain, "%s walk=%.1f parse=%.1f\n", c->name,
                (double)c->size / med[C_WALK] / 1e6, *featc_mbs);
    printf("  featc vs   ");
    for (who = 1; who < NCONTENDERS; who++)
        printf(" %s %.2fx%s", contender_name[who], med[who] / med[C_FEATC],
               who + 1 < NCONTENDERS ? ";" : "\n");
    printf("  featc / best peer (%s): %.1fx\n", best_name, *featc_mbs / best_peer);
    if (!ok) {
        fprintf(stderr, "bench: %s: the contenders' checksums differ\n", c->name);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- CRC-32C */

/* One pass of 32 MB through fn in size-byte calls: seconds. */
static double crc_pass(uint32_t (*fn)(uint32_t, const void *, size_t), const uint8_t *buf,
                       size_t size)
{
    size_t loops = (size_t)(32u << 20) / size, i;
    uint32_t c = 0;
    double t0 = now(), t;
    for (i = 0; i < loops; i++)
        c = fn(c, buf, size);
    t = now() - t0;
    sink += c;
    return t;
}

/* fc_crc32c, the one-stream loop, then each hardware path on its own
 * (fc_crc32c_variant: on x86-64 the three crc32 streams, PCLMULQDQ and
 * VPCLMULQDQ folding).  A kernel this short is best measured by its least
 * disturbed pass: the best of 5 x reps passes each, the contenders taking
 * turns pass by pass (on a shared machine medians moved by a third from
 * run to run). */
static void bench_crc(int reps)
{
    static const size_t sizes[4] = {64, 1024, 64 * 1024, 1024 * 1024};
    uint32_t (*fns[8])(uint32_t, const void *, size_t);
    const char *names[8];
    uint8_t *buf = (uint8_t *)malloc(1024 * 1024);
    size_t i;
    int v, nf, rep;
    if (buf == NULL)
        return;
    for (i = 0; i < 1024 * 1024; i++)
        buf[i] = (uint8_t)(i * 131u + (i >> 9));
    printf("\nCRC-32C (runtime: %s): GB/s, best of %d passes of 32 MB, in turns\n",
           fc_crc32c_impl(), 5 * reps);
    if (!fc_crc32c_hw_available()) {
        printf("  no CRC instruction on this CPU: nothing to compare\n");
        free(buf);
        return;
    }
    /* the baseline: the runtime's one-stream loop of the same instruction
     * (SSE4.2 on x86-64), 8 bytes a step, as most CRC-32C code is written */
    if (fc_crc32c_hw_1way(0, "123456789", 9) != 0xe3069283u ||
        fc_crc32c(0, buf, 1u << 20) != fc_crc32c_hw_1way(0, buf, 1u << 20)) {
        printf("  the two implementations disagree\n");
        exit(1);
    }
    fns[0] = fc_crc32c;
    names[0] = "fc_crc32c";
    fns[1] = fc_crc32c_hw_1way;
    names[1] = "one stream";
    for (nf = 2; nf < 8 && (fns[nf] = fc_crc32c_variant(nf - 2, &names[nf])) != NULL; nf++)
        ;
    printf("  %-10s", "buffer");
    for (v = 0; v < nf; v++)
        printf(" %11s", names[v]);
    printf(" %8s\n", "ratio");
    for (i = 0; i < 4; i++) {
        double best[8];
        char label[32];
        for (rep = 0; rep < 5 * reps; rep++)
            for (v = 0; v < nf; v++) {
                double t = crc_pass(fns[v], buf, sizes[i]);
                if (rep == 0 || t < best[v])
                    best[v] = t;
            }
        if (sizes[i] >= 1024 * 1024)
            snprintf(label, sizeof label, "%zu MB", sizes[i] >> 20);
        else if (sizes[i] >= 1024)
            snprintf(label, sizeof label, "%zu KB", sizes[i] >> 10);
        else
            snprintf(label, sizeof label, "%zu B", sizes[i]);
        printf("  %-10s", label);
        for (v = 0; v < nf; v++)
            printf(" %11.2f", (double)((32u << 20) / sizes[i] * sizes[i]) / best[v] / 1e9);
        printf(" %7.2fx\n", best[1] / best[0]);
        if (sizes[i] == 64 * 1024) {
            int fastest = 2;
            for (v = 3; v < nf; v++)
                if (best[v] < best[fastest])
                    fastest = v;
            /* the runtime's choice (timed once at its first long buffer)
             * against the kernel this run found fastest, at 64 KB */
            printf("  choice: %s; fastest kernel here at 64 KB: %s (fc_crc32c at %.2fx it)\n",
                   fc_crc32c_impl(), names[fastest], best[fastest] / best[0]);
        }
    }
    free(buf);
}

/* ------------------------------------------------------- GZIP and ZLIB */

static int inflate_all(const uint8_t *src, size_t len, int gzip, uint8_t *out, size_t cap,
                       uint64_t *total)
{
    z_stream z;
    int rc;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, gzip ? 16 + MAX_WBITS : MAX_WBITS) != Z_OK)
        return -1;
    z.next_in = (Bytef *)(uintptr_t)src;
    z.avail_in = (uInt)len;
    *total = 0;
    do {
        z.next_out = out;
        z.avail_out = (uInt)cap;
        rc = inflate(&z, Z_NO_FLUSH);
        *total += cap - z.avail_out;
    } while (rc == Z_OK);
    inflateEnd(&z);
    return rc == Z_STREAM_END ? 0 : -1;
}

/* ISA-L's inflate over the same bytes into the same 64 KB buffer: its
 * gzip or zlib wrapper parsed and its trailer checked, member after member. */
static int isal_inflate_all(const uint8_t *src, size_t len, int gzip, uint8_t *out, size_t cap,
                            uint64_t *total)
{
    static struct inflate_state st; /* 87 KB: not on the stack */
    isal_inflate_init(&st);
    st.crc_flag = gzip ? ISAL_GZIP : ISAL_ZLIB;
    st.next_in = (uint8_t *)(uintptr_t)src;
    st.avail_in = (uint32_t)len;
    *total = 0;
    for (;;) {
        st.next_out = out;
        st.avail_out = (uint32_t)cap;
        if (isal_inflate(&st) != ISAL_DECOMP_OK)
            return -1;
        *total += cap - st.avail_out;
        if (st.block_state == ISAL_BLOCK_FINISH) {
            if (st.avail_in == 0)
                return 0;
            {
                uint8_t *in = st.next_in;
                uint32_t left = st.avail_in;
                isal_inflate_reset(&st); /* the next member */
                st.crc_flag = gzip ? ISAL_GZIP : ISAL_ZLIB;
                st.next_in = in;
                st.avail_in = left;
            }
        } else if (st.avail_in == 0 && st.avail_out == cap) {
            return -1; /* cut short */
        }
    }
}

/* fc_reader over the file in memory, CRC-verified (crc: FC_CRC_VERIFY) or
 * not, with a work area of work_size: FC_READER_WORK_SIZE takes ISA-L where
 * the runtime has it, FC_INFLATE_ARENA_MIN zlib.  *inflater: the one that
 * ran. */
static int read_compressed(const uint8_t *src, size_t len, fc_compression c, fc_crc_policy crc,
                           uint8_t *buf, size_t cap, void *work, size_t work_size,
                           uint64_t *records, uint64_t *bytes, const char **inflater)
{
    fc_reader r;
    fc_reader_options opt;
    fc_record rec;
    fc_error err;
    fc_status st;
    memset(&opt, 0, sizeof opt);
    opt.compression = c;
    opt.crc_policy = crc;
    opt.buffer = buf;
    opt.buffer_size = cap;
    opt.work = work;
    opt.work_size = work_size;
    if (fc_reader_init_mem(&r, src, len, &opt, &err) != FC_OK)
        return -1;
    *inflater = fc_reader_inflater(&r);
    *records = 0;
    while ((st = fc_reader_next(&r, &rec)) == FC_OK)
        (*records)++;
    *bytes = fc_reader_offset(&r);
    return st == FC_END && *inflater != NULL ? 0 : -1;
}

/* The ways to read a compressed file, in turns: fc_reader with each
 * inflater, each inflater alone, and fc_reader with ISA-L checking no CRC
 * (what the reader adds to ISA-L beside the CRCs). */
static int bench_compressed(const char *dir, const char *file, fc_compression c, int reps)
{
    static uint8_t work[FC_READER_WORK_SIZE];
    static uint8_t buf[256 * 1024]; /* the reader's record buffer */
    double t[5][MAX_REPS], mb[5];
    const char *inflater[2] = {NULL, NULL};
    fc_mapped_file map = load(dir, file);
    const uint8_t *src = map.data;
    size_t len = map.size;
    uint64_t records = 0, bytes[3] = {0, 0, 0}, inflated = 0, isal_out = 0;
    const char *unchecked = NULL;
    int rep, k, gzip = c == FC_COMPRESSION_GZIP;
    for (rep = 0; rep < reps; rep++) {
        for (k = 0; k < 2; k++) {
            double t0 = now();
            if (read_compressed(src, len, c, FC_CRC_VERIFY, buf, sizeof buf, work,
                                k == 0 ? FC_READER_WORK_SIZE : FC_INFLATE_ARENA_MIN, &records,
                                &bytes[k], &inflater[k]) != 0)
                return -1;
            t[k][rep] = now() - t0;
        }
        {
            double t0 = now();
            if (inflate_all(src, len, gzip, buf, 64 * 1024, &inflated) != 0)
                return -1;
            t[2][rep] = now() - t0;
            t0 = now();
            if (isal_inflate_all(src, len, gzip, buf, 64 * 1024, &isal_out) != 0 ||
                isal_out != inflated)
                return -1;
            t[3][rep] = now() - t0;
            t0 = now();
            if (read_compressed(src, len, c, FC_CRC_NONE, buf, sizeof buf, work,
                                FC_READER_WORK_SIZE, &records, &bytes[2], &unchecked) != 0)
                return -1;
            t[4][rep] = now() - t0;
        }
    }
    for (k = 0; k < 5; k++)
        mb[k] = (double)inflated / median(t[k], reps) / 1e6;
    printf("\n%s: %s, %.1f MB -> %.1f MB, %llu records; MB/s of decompressed bytes, "
           "median of %d\n",
           fc_compression_name(c), file, (double)len / 1e6, (double)inflated / 1e6,
           (unsigned long long)records, reps);
    printf("  fc_reader, CRC-verified records, inflating with %-6s %8.1f\n", inflater[0], mb[0]);
    printf("  fc_reader, CRC-verified records, inflating with %-6s %8.1f\n", inflater[1], mb[1]);
    printf("  %-54s %8.1f\n", "zlib inflate alone into a 64 KB buffer", mb[2]);
    printf("  %-54s %8.1f\n", "ISA-L isal_inflate alone, same buffer", mb[3]);
    printf("  fc_reader, no CRC checked, inflating with %-12s %8.1f\n", unchecked, mb[4]);
    printf("  / zlib inflate alone: fc_reader (%s) %.2fx, fc_reader (%s) %.2fx, "
           "ISA-L alone %.2fx\n", inflater[0], mb[0] / mb[2], inflater[1], mb[1] / mb[2],
           mb[3] / mb[2]);
    printf("  / ISA-L alone: fc_reader (%s) %.2fx, with no CRC checked %.2fx\n", inflater[0],
           mb[0] / mb[3], mb[4] / mb[3]);
    if (chain != NULL && gzip) { /* "tutorial.tfrecord.gz" -> "tutorial.gz" */
        size_t stem = strcspn(file, ".");
        fprintf(chain, "%.*s.gz inflate=%.1f reader=%.1f\n", (int)stem, file,
                (double)len / median(t[3], reps) / 1e6, (double)len / median(t[0], reps) / 1e6);
    }
    fc_unmap_file(&map);
    return bytes[0] == inflated && bytes[1] == inflated && bytes[2] == inflated ? 0 : -1;
}

/* ------------------------------------------------ random access and threads */

typedef struct par_ctx {
    corpus *c;
    size_t struct_size;
} par_ctx;

static fc_status par_record(void *ctx, void *state, fc_pool_split *split, const fc_record *rec,
                            fc_error *err)
{
    par_ctx *p = (par_ctx *)ctx;
    (void)split;
    return (fc_status)p->c->parse(state, rec->data, rec->length, err);
}

/* Seconds for the pool to read and parse the file (or, with mem, the
 * bytes in memory) with `threads` threads, or a negative number on an
 * error. */
static double pool_pass_mem(const char *path, const corpus *mem, unsigned threads,
                            const fc_pool_work *w, uint64_t *records)
{
    fc_pool_options o;
    fc_pool *pool;
    fc_pool_split *sp;
    fc_error err;
    double t0 = now();
    int bad = 0;
    fc_status st;
    memset(&o, 0, sizeof o);
    o.threads = threads;
    o.ordered = 0;
    o.compression = FC_COMPRESSION_AUTO;
    *records = 0;
    if (mem != NULL) {
        const void *data = mem->data;
        size_t size = mem->size;
        st = fc_pool_open_mem(&pool, &data, &size, 1, &o, w, &err);
    } else {
        st = fc_pool_open(&pool, &path, 1, &o, w, &err);
    }
    if (st != FC_OK) {
        fprintf(stderr, "bench: %s\n", err.message);
        return -1;
    }
    while (fc_pool_next(pool, &sp) == FC_OK) {
        *records += sp->records;
        if (sp->status != FC_END) {
            fprintf(stderr, "bench: %s: %s\n", path, sp->err.message);
            bad = 1;
        }
    }
    fc_pool_close(pool);
    return bad ? -1 : now() - t0;
}

static double pool_pass(const char *path, unsigned threads, const fc_pool_work *w,
                        uint64_t *records)
{
    return pool_pass_mem(path, NULL, threads, w, records);
}

/* The generated parser over the pool at 1 and 2 threads. */
static int bench_parallel(const char *dir, corpus *c, size_t struct_size, int reps)
{
    char path[1024];
    double t0[MAX_REPS], t1[MAX_REPS], t2[MAX_REPS], tf1[MAX_REPS], tf2[MAX_REPS], z, a, b,
        fa, fb;
    uint64_t n1 = 0, n2 = 0, nf = 0;
    par_ctx ctx;
    fc_pool_work w;
    int rep;
    snprintf(path, sizeof path, "%s/%s", dir, c->file);
    ctx.c = c;
    ctx.struct_size = struct_size;
    w.ctx = &ctx;
    w.state_size = struct_size;
    w.record = par_record;
    w.state_free = NULL;
    for (rep = 0; rep < reps; rep++) {
        double s0 = now();
        if (run(c, C_FEATC, NULL, NULL) != 0)
            return -1;
        t0[rep] = now() - s0;
        t1[rep] = pool_pass_mem(path, c, 1, &w, &n1);
        t2[rep] = pool_pass_mem(path, c, 2, &w, &n2);
        tf1[rep] = pool_pass(path, 1, &w, &nf);
        tf2[rep] = pool_pass(path, 2, &w, &nf);
        if (t1[rep] < 0 || t2[rep] < 0 || tf1[rep] < 0 || tf2[rep] < 0 || n1 != n2 || nf != n1)
            return -1;
    }
    z = (double)c->size / median(t0, reps) / 1e6;
    a = (double)c->size / median(t1, reps) / 1e6;
    b = (double)c->size / median(t2, reps) / 1e6;
    fa = (double)c->size / median(tf1, reps) / 1e6;
    fb = (double)c->size / median(tf2, reps) / 1e6;
    printf("  %-10s %9.1f %9.1f %9.1f  %5.2fx  %9.1f %9.1f  %5.2fx\n", c->name, z, a, b, b / a,
           fa, fb, fb / fa);
    return 0;
}

/* Placing 64 splits of a file: by the checksum sync (reads from the
 * split's start), by the walk (reads every header before it), by an index. */
static void bench_sync(corpus *c)
{
    enum { K = 64 };
    static fc_index_entry *idx;
    fc_reader r;
    fc_reader_options o;
    fc_record rec;
    size_t n = 0, i;
    double t_sync = 0, t_walk = 0, t_index = 0;
    memset(&o, 0, sizeof o);
    idx = (fc_index_entry *)malloc((c->records + 1) * sizeof *idx);
    if (idx == NULL || fc_reader_init_mem(&r, c->data, c->size, &o, NULL) != FC_OK)
        return;
    while (fc_reader_next(&r, &rec) == FC_OK && n < c->records) {
        idx[n].offset = rec.offset;
        idx[n++].size = rec.length + FC_RECORD_OVERHEAD;
    }
    for (i = 1; i < K; i++) {
        uint64_t a = (uint64_t)c->size * i / K, b = (uint64_t)c->size * (i + 1) / K;
        double t0;
        fc_reader_init_mem(&r, c->data, c->size, &o, NULL);
        t0 = now();
        fc_reader_range(&r, a, b, FC_SYNC_CHECKSUM);
        t_sync += now() - t0;
        sink += fc_reader_offset(&r);
        fc_reader_init_mem(&r, c->data, c->size, &o, NULL);
        t0 = now();
        fc_reader_range(&r, a, b, FC_SYNC_WALK);
        t_walk += now() - t0;
        sink += fc_reader_offset(&r);
        fc_reader_init_mem(&r, c->data, c->size, &o, NULL);
        t0 = now();
        fc_reader_range_index(&r, idx, n, a, b);
        t_index += now() - t0;
        sink += fc_reader_offset(&r);
    }
    printf("  %-10s %12.1f %12.1f %12.2f\n", c->name, t_sync / (K - 1) * 1e6,
           t_walk / (K - 1) * 1e6, t_index / (K - 1) * 1e6);
    free(idx);
}

static fc_status count_record(void *ctx, void *state, fc_pool_split *split, const fc_record *rec,
                              fc_error *err)
{
    (void)ctx;
    (void)split;
    (void)err;
    *(uint64_t *)state += rec->length;
    return FC_OK;
}

/* Seekable GZIP: the same records in 1 MiB members against one member. */
static int bench_seekable(const char *dir, corpus *c, int reps)
{
    static uint8_t work[FC_WRITER_WORK_SIZE];
    static uint8_t rwork[FC_READER_WORK_SIZE], rbuf[256 * 1024];
    size_t cap = c->size + c->size / 2 + 65536, len[2], at = 0;
    uint8_t *out[2];
    char *text;
    double tr[2][MAX_REPS], tp[2][MAX_REPS];
    uint64_t records = 0, bytes = 0, prev = 0;
    int m, rep;
    char path[1024];
    fc_pool_work w;
    out[0] = (uint8_t *)malloc(cap);
    out[1] = (uint8_t *)malloc(cap);
    text = (char *)malloc((c->size / (1u << 20) + 2) * FC_MEMBERS_LINE_MAX * 2);
    if (out[0] == NULL || out[1] == NULL || text == NULL)
        return -1;
    for (m = 0; m < 2; m++) {
        fc_writer wr;
        fc_writer_options o;
        fc_reader r;
        fc_reader_options ro;
        fc_record rec;
        memset(&o, 0, sizeof o);
        o.compression = FC_COMPRESSION_GZIP;
        o.member_bytes = m == 1 ? (1u << 20) : 0;
        o.work = work;
        o.work_size = FC_DEFLATE_ARENA_SIZE;
        memset(&ro, 0, sizeof ro);
        if (fc_writer_init_mem(&wr, out[m], cap, &o, NULL) != FC_OK ||
            fc_reader_init_mem(&r, c->data, c->size, &ro, NULL) != FC_OK)
            return -1;
        while (fc_reader_next(&r, &rec) == FC_OK) {
            if (fc_writer_write(&wr, rec.data, rec.length) != FC_OK)
                return -1;
            if (m == 1 && fc_writer_members(&wr) != prev) {
                fc_gzip_member mb = fc_writer_member(&wr);
                prev = fc_writer_members(&wr);
                at += fc_members_line(text + at, FC_MEMBERS_LINE_MAX, &mb);
            }
        }
        if (fc_writer_close(&wr) != FC_OK)
            return -1;
        len[m] = fc_writer_size(&wr);
    }
    /* the seekable file and its member index, for the pool */
    for (m = 0; m < 2; m++) {
        FILE *f;
        snprintf(path, sizeof path, "%s/%s.seekable.gz%s", dir, c->file, m ? ".members" : "");
        f = fopen(path, "wb");
        if (f == NULL || fwrite(m ? (const void *)text : (const void *)out[1], 1,
                                m ? at : len[1], f) != (m ? at : len[1]) || fclose(f) != 0)
            return -1;
    }
    snprintf(path, sizeof path, "%s/%s.seekable.gz", dir, c->file);
    w.ctx = NULL;
    w.state_size = sizeof(uint64_t);
    w.record = count_record;
    w.state_free = NULL;
    for (rep = 0; rep < reps; rep++)
        for (m = 0; m < 2; m++) {
            fc_reader r;
            fc_reader_options ro;
            fc_record rec;
            double t0 = now();
            memset(&ro, 0, sizeof ro);
            ro.compression = FC_COMPRESSION_GZIP;
            ro.buffer = rbuf;
            ro.buffer_size = sizeof rbuf;
            ro.work = rwork;
            ro.work_size = sizeof rwork;
            records = bytes = 0;
            if (fc_reader_init_mem(&r, out[m], len[m], &ro, NULL) != FC_OK)
                return -1;
            while (fc_reader_next(&r, &rec) == FC_OK) {
                records++;
                bytes += rec.length + FC_RECORD_OVERHEAD;
            }
            tr[m][rep] = now() - t0;
            tp[m][rep] = pool_pass(path, m == 0 ? 1u : 2u, &w, &records);
            if (tp[m][rep] < 0)
                return -1;
        }
    printf("  %-10s %9.1f %9.1f  %+6.2f%%  %9.1f %9.1f %9.1f %9.1f\n", c->name,
           (double)len[0] / 1e6, (double)len[1] / 1e6,
           100.0 * ((double)len[1] - (double)len[0]) / (double)len[0],
           (double)bytes / median(tr[0], reps) / 1e6, (double)bytes / median(tr[1], reps) / 1e6,
           (double)bytes / median(tp[0], reps) / 1e6, (double)bytes / median(tp[1], reps) / 1e6);
    free(out[0]);
    free(out[1]);
    free(text);
    return 0;
}

int main(int argc, char **argv)
{
    static tutorial_record tutorial;
    static wide_record wide;
    static img_photo photo;
    static seq_clip clip;
    corpus corpora[4] = {
        {"tutorial", "tutorial.tfrecord",
         "the TFRecord tutorial's 4 scalar features (specs/tutorial.feat)",
         {&tutorial_record_desc, NULL, &tutorial}, tutorial_record_desc.parse, NULL, 0, 0},
        {"wide", "wide.tfrecord", "101 features, 26 of them read (tests/bench/wide.feat)",
         {&wide_record_desc, NULL, &wide}, wide_record_desc.parse, NULL, 0, 0},
        {"image", "image.tfrecord", "60-120 KB bytes + 4 int64 (tests/bench/photo.feat)",
         {&img_photo_desc, NULL, &photo}, img_photo_desc.parse, NULL, 0, 0},
        {"sequence", "sequence.tfrecord",
         "SequenceExample, 3 context + 3 lists of 20-200 frames (tests/bench/clip.feat)",
         {NULL, &seq_clip_desc, &clip}, seq_clip_desc.parse, NULL, 0, 0}};
    int reps = argc > 2 ? atoi(argv[2]) : 7, i, fail = 0;
    double mbs;
    if (argc < 2 || argc > 4 || reps < 5 || reps > MAX_REPS) {
        fprintf(stderr, "usage: bench DIR [REPS: 5..%d [CHAIN]]\n", MAX_REPS);
        return 64;
    }
    if (argc == 4 && (chain = fopen(argv[3], "w")) == NULL) {
        perror(argv[3]);
        return 2;
    }
    printf("featc benchmark: CRC verification on; every contender reads the same in-memory "
           "bytes\nthrough fc_reader and fills the same generated struct; MB/s of TFRecord "
           "bytes\n(framing included), median of %d passes each, interleaved.\n", reps);
    for (i = 0; i < 4; i++) {
        fc_mapped_file map = load(argv[1], corpora[i].file);
        corpora[i].data = map.data;
        corpora[i].size = map.size;
        if (bench_corpus(&corpora[i], reps, &mbs) != 0)
            fail = 1;
        fc_unmap_file(&map);
    }
    printf("\nThreads (fc_pool: checksum sync, header walk, junction check, then the generated\n"
           "parser per record), MB/s, median of %d: featc alone (no pool); the pool over the\n"
           "bytes in memory at 1 and 2 threads; the pool over the file (mapped per pass)\n",
           reps);
    printf("  %-10s %9s %9s %9s  %6s  %9s %9s  %6s\n", "corpus", "featc", "mem 1", "mem 2",
           "ratio", "file 1", "file 2", "ratio");
    for (i = 0; i < 2; i++) {
        fc_mapped_file map = load(argv[1], corpora[i].file);
        corpora[i].data = map.data;
        corpora[i].size = map.size;
        if (bench_parallel(argv[1], &corpora[i],
                           i == 0 ? sizeof tutorial : sizeof wide, reps) != 0) {
            fprintf(stderr, "bench: the thread pool failed on %s\n", corpora[i].file);
            fail = 1;
        }
        fc_unmap_file(&map);
    }
    printf("\nPlacing a split (63 of 64 equal byte ranges), us per split on average\n");
    printf("  %-10s %12s %12s %12s\n", "corpus", "checksum", "walk", "index");
    for (i = 0; i < 4; i++) {
        fc_mapped_file map = load(argv[1], corpora[i].file);
        corpora[i].data = map.data;
        corpora[i].size = map.size;
        bench_sync(&corpora[i]);
        fc_unmap_file(&map);
    }
    printf("\nSeekable GZIP (level 6): one member vs 1 MiB members; sizes in MB; read MB/s of\n"
           "decompressed bytes, median of %d: fc_reader over memory, one member and members;\n"
           "the pool over the file (1 thread, one member; 2 threads, members)\n", reps);
    printf("  %-10s %9s %9s  %7s  %9s %9s %9s %9s\n", "corpus", "1 member", "members",
           "size", "read 1", "read m", "pool 1", "pool m/2");
    for (i = 0; i < 2; i++) {
        fc_mapped_file map = load(argv[1], corpora[i].file);
        corpora[i].data = map.data;
        corpora[i].size = map.size;
        if (bench_seekable(argv[1], &corpora[i], reps) != 0) {
            fprintf(stderr, "bench: seekable GZIP failed on %s\n", corpora[i].file);
            fail = 1;
        }
        fc_unmap_file(&map);
    }
    bench_crc(reps);
    /* the smallest records (framing and CRC per 100 bytes) and larger ones */
    if (bench_compressed(argv[1], "tutorial.tfrecord.gz", FC_COMPRESSION_GZIP, reps) != 0 ||
        bench_compressed(argv[1], "wide.tfrecord.gz", FC_COMPRESSION_GZIP, reps) != 0 ||
        bench_compressed(argv[1], "tutorial.tfrecord.zz", FC_COMPRESSION_ZLIB, reps) != 0 ||
        bench_compressed(argv[1], "wide.tfrecord.zz", FC_COMPRESSION_ZLIB, reps) != 0) {
        fprintf(stderr, "bench: reading a compressed file failed\n");
        fail = 1;
    }
    if (chain != NULL && fclose(chain) != 0)
        fail = 1;
    return fail;
}
