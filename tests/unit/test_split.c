/* Random access and splits: index files, seek, skip_to, sync, and reading a
 * file as k byte ranges.
 *
 * The property every split test checks: cut a file into k ranges that
 * cover it, read the ranges in order (each with its own reader), and the
 * records that come out are the sequential read's, each once, in order;
 * where the sequential read fails, the splits fail at the same record with
 * the same error.  By the walk (exact), by an index (exact), and by the
 * checksum sync, whose guess each split checks against the chain the splits
 * before it ended with (the "junction"): a guess that is wrong must be
 * caught there, and the split is then read from the junction instead. */
#include <featc/fc.h>
#include <featc/fc_input.h>
#include <featc/fc_pool.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "harness.h"

/* --------------------------------------------------------------- records */

typedef struct rec_list {
    uint64_t *offset;
    size_t *length;
    uint64_t *index;
    size_t n, cap;
    fc_status status;   /* FC_END, or the error that ended the read */
    fc_error err;
    size_t mismatches;  /* checksum guesses the junction check corrected */
    size_t guesses;     /* splits positioned by a checksum guess */
} rec_list;

static void rl_init(rec_list *l)
{
    memset(l, 0, sizeof *l);
    l->status = FC_END;
    fc_error_clear(&l->err);
}

static void rl_free(rec_list *l)
{
    free(l->offset);
    free(l->length);
    free(l->index);
    rl_init(l);
}

static void rl_add(rec_list *l, const fc_record *rec)
{
    if (l->n == l->cap) {
        l->cap = l->cap == 0 ? 64 : l->cap * 2;
        l->offset = (uint64_t *)realloc(l->offset, l->cap * sizeof *l->offset);
        l->length = (size_t *)realloc(l->length, l->cap * sizeof *l->length);
        l->index = (uint64_t *)realloc(l->index, l->cap * sizeof *l->index);
        if (l->offset == NULL || l->length == NULL || l->index == NULL)
            abort();
    }
    l->index[l->n] = rec->index;
    l->offset[l->n] = rec->offset;
    l->length[l->n++] = rec->length;
}

static void init_mem(fc_reader *r, const unsigned char *data, size_t len, fc_crc_policy policy)
{
    fc_reader_options o;
    memset(&o, 0, sizeof o);
    o.crc_policy = policy;
    if (fc_reader_init_mem(r, data, len, &o, NULL) != FC_OK)
        abort();
}

/* Reads r to its end into l; returns the final status. */
static fc_status drain(fc_reader *r, rec_list *l, uint64_t *count)
{
    fc_record rec;
    fc_status s;
    uint64_t base = *count, returned = 0;
    while ((s = fc_reader_next(r, &rec)) == FC_OK) {
        /* indices count the skipped records too */
        uint64_t want = base + returned + fc_reader_skipped(r);
        CHECK_MSG(!fc_reader_index_known(r) || rec.index == want,
                  "record at %llu has index %llu, expected %llu",
                  (unsigned long long)rec.offset, (unsigned long long)rec.index,
                  (unsigned long long)want);
        rl_add(l, &rec);
        returned++;
    }
    *count = base + returned + fc_reader_skipped(r);
    if (s != FC_END) {
        l->status = s;
        l->err = *fc_reader_error(r);
    }
    return s;
}

static void seq_read(const unsigned char *data, size_t len, fc_crc_policy policy, rec_list *l)
{
    fc_reader r;
    uint64_t count = 0;
    rl_init(l);
    init_mem(&r, data, len, policy);
    drain(&r, l, &count);
}

enum { BY_WALK, BY_INDEX, BY_CHECKSUM };
static const char *const method_names[] = {"walk", "index", "checksum"};

/* Reads data as k ranges in order, each with a new reader, into l; stops
 * at the first error.  skipped counts records skipped under
 * FC_CRC_SKIP_CORRUPT, which the index of the next record includes. */
static void split_read(const unsigned char *data, size_t len, size_t k, int method,
                       fc_crc_policy policy, const fc_index_entry *idx, size_t nidx, rec_list *l)
{
    uint64_t expected = 0; /* where the chain of the splits so far ends */
    uint64_t count = 0;    /* records before it */
    size_t i;
    rl_init(l);
    for (i = 0; i < k; i++) {
        uint64_t a = (uint64_t)len * i / k, b = (uint64_t)len * (i + 1) / k;
        fc_reader r;
        fc_status s;
        uint64_t before = count;
        init_mem(&r, data, len, policy);
        if (method == BY_WALK)
            s = fc_reader_range(&r, a, b, FC_SYNC_WALK);
        else if (method == BY_INDEX)
            s = fc_reader_range_index(&r, idx, nidx, a, b);
        else
            s = fc_reader_range(&r, a, b, FC_SYNC_CHECKSUM);
        CHECK_MSG(s == FC_OK, "%s split %zu of %zu: status %d: %s", method_names[method], i, k,
                  (int)s, fc_reader_error(&r)->message);
        if (s != FC_OK)
            return;
        if (method == BY_CHECKSUM) {
            /* The junction: the first record of this split is where the
             * chain before it ended, if that is inside the range. */
            uint64_t start = fc_reader_offset(&r);
            uint64_t bound = b < len ? b : len;
            int ok = expected < b ? start == expected : start >= bound;
            l->guesses++;
            if (!ok)
                l->mismatches++;
            if (expected >= b)
                continue; /* this split owns no record */
            /* read from the junction with the index known: the same
             * records, and the same messages as a sequential read */
            s = fc_reader_seek(&r, expected, count);
            CHECK(s == FC_OK);
        } else if (fc_reader_offset(&r) != expected && expected < b && l->status == FC_END) {
            CHECK_MSG(0, "%s split %zu of %zu starts at %llu, the chain before it ends at %llu",
                      method_names[method], i, k, (unsigned long long)fc_reader_offset(&r),
                      (unsigned long long)expected);
        }
        if (drain(&r, l, &count) != FC_END)
            return;
        if (count > before || fc_reader_offset(&r) > expected)
            expected = fc_reader_offset(&r);
    }
}

/* Equal record lists and endings. */
static int rl_same(const rec_list *x, const rec_list *y, int same_message, const char *what)
{
    size_t i;
    if (x->n != y->n) {
        CHECK_MSG(0, "%s: %zu records, sequential read %zu", what, x->n, y->n);
        return 0;
    }
    for (i = 0; i < x->n; i++)
        if (x->offset[i] != y->offset[i] || x->length[i] != y->length[i] ||
            (x->index != NULL && y->index != NULL && x->index[i] != y->index[i] &&
             x->index[i] != FC_NO_INDEX && same_message)) {
            CHECK_MSG(0, "%s: record %zu at %llu (%zu bytes), sequential read at %llu (%zu)",
                      what, i, (unsigned long long)x->offset[i], x->length[i],
                      (unsigned long long)y->offset[i], y->length[i]);
            return 0;
        }
    if (x->status != y->status || x->err.offset != y->err.offset ||
        (same_message && strcmp(x->err.message, y->err.message) != 0)) {
        CHECK_MSG(0, "%s: ends with %d \"%s\", sequential read with %d \"%s\"", what,
                  (int)x->status, x->err.message, (int)y->status, y->err.message);
        return 0;
    }
    return 1;
}

/* The index of an intact file, from its sequential read. */
static fc_index_entry *index_of(const rec_list *l)
{
    fc_index_entry *e = (fc_index_entry *)malloc((l->n + 1) * sizeof *e);
    size_t i;
    if (e == NULL)
        abort();
    for (i = 0; i < l->n; i++) {
        e[i].offset = l->offset[i];
        e[i].size = l->length[i] + FC_RECORD_OVERHEAD;
    }
    return e;
}

/* Every k in 1..kmax and every method: the splits read what the sequential
 * read does.  idx may be NULL (no index method).  Returns the checksum
 * guesses corrected. */
static size_t check_all_splits(const unsigned char *data, size_t len, size_t kmax,
                               fc_crc_policy policy, const fc_index_entry *idx, size_t nidx,
                               const char *name)
{
    rec_list seq, sp;
    size_t k, corrected = 0;
    int m;
    seq_read(data, len, policy, &seq);
    for (k = 1; k <= kmax; k++)
        for (m = BY_WALK; m <= BY_CHECKSUM; m++) {
            char what[256];
            if (m == BY_INDEX && idx == NULL)
                continue;
            snprintf(what, sizeof what, "%s, %zu splits by %s", name, k, method_names[m]);
            split_read(data, len, k, m, policy, idx, nidx, &sp);
            rl_same(&sp, &seq, 1, what);
            corrected += sp.mismatches;
            rl_free(&sp);
        }
    rl_free(&seq);
    return corrected;
}

/* ---------------------------------------------------------- file builders */

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;

static void buf_add(buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = (unsigned char *)realloc(b->p, b->cap);
        if (b->p == NULL)
            abort();
    }
    if (n > 0)
        memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void buf_record(buf *b, const unsigned char *data, size_t len)
{
    unsigned char *tmp = (unsigned char *)malloc(len + FC_RECORD_OVERHEAD);
    if (tmp == NULL || fc_record_frame(tmp, len + FC_RECORD_OVERHEAD, data, len) == 0)
        abort();
    buf_add(b, tmp, len + FC_RECORD_OVERHEAD);
    free(tmp);
}

static void buf_random_record(buf *b, size_t len)
{
    unsigned char *tmp = (unsigned char *)malloc(len + 1);
    if (tmp == NULL)
        abort();
    h_fill_random(tmp, len);
    buf_record(b, tmp, len);
    free(tmp);
}

/* A record whose payload holds a whole TFRecord stream of n records
 * (nested `depth` deep: the inner records hold streams too), with random
 * bytes before it and, unless flush, after it: what a TFRecord file stored
 * in a bytes feature looks like to the framing. */
static void buf_embedding_record(buf *b, size_t n, size_t maxlen, int depth, int flush)
{
    buf inner = {NULL, 0, 0};
    unsigned char pad[80];
    size_t before = (size_t)(h_rand() % 40), after = flush ? 0 : (size_t)(h_rand() % 40), i;
    h_fill_random(pad, sizeof pad);
    buf_add(&inner, pad, before);
    for (i = 0; i < n; i++) {
        if (depth > 0 && i % 2 == 0)
            buf_embedding_record(&inner, 3, maxlen, depth - 1, (int)(h_rand() & 1));
        else
            buf_random_record(&inner, (size_t)(h_rand() % (maxlen + 1)));
    }
    buf_add(&inner, pad + 40, after);
    buf_record(b, inner.p, inner.n);
    free(inner.p);
}

/* --------------------------------------------------------------- the tests */

static void test_index_dali_format(void)
{
    /* Three records of 0, 5 and 100 data bytes: DALI's tfrecord2idx and
     * the tfrecord package write "offset size" with size = data + 16. */
    static const char hand[] = "0 16\n16 21\n37 116\n";
    buf b = {NULL, 0, 0};
    fc_index_entry e[4];
    size_t n = 0, i, at = 0;
    char text[3 * FC_INDEX_LINE_MAX];
    fc_error err;
    fc_reader r;
    buf_random_record(&b, 0);
    buf_random_record(&b, 5);
    buf_random_record(&b, 100);
    CHECK(fc_index_parse(hand, strlen(hand), e, 4, &n, &err) == FC_OK);
    CHECK(n == 3);
    CHECK(e[0].offset == 0 && e[0].size == 16 && e[1].offset == 16 && e[1].size == 21);
    CHECK(e[2].offset == 37 && e[2].size == 116 && b.n == 153);
    for (i = 0; i < n; i++)
        at += fc_index_line(text + at, sizeof text - at, &e[i]);
    CHECK(at == strlen(hand) && memcmp(text, hand, at) == 0);
    init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
    CHECK(fc_index_verify(&r, e, n, &err) == FC_OK);
    /* counting first, then too little room */
    CHECK(fc_index_parse(hand, strlen(hand), NULL, 0, &n, &err) == FC_OK && n == 3);
    CHECK(fc_index_parse(hand, strlen(hand), e, 2, &n, &err) == FC_ERR_BUFFER && n == 3);
    /* the forms DALI's reader accepts: CRLF, tabs, no final newline, empty lines */
    {
        static const char loose[] = "0\t16\r\n\n16  21 \n37 116";
        CHECK(fc_index_parse(loose, strlen(loose), e, 4, &n, &err) == FC_OK && n == 3);
        CHECK(e[2].offset == 37 && e[2].size == 116);
    }
    /* records by index */
    {
        fc_record rec;
        init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
        CHECK(fc_reader_records(&r, e, 3, 1, 2) == FC_OK);
        CHECK(fc_reader_next(&r, &rec) == FC_OK && rec.index == 1 && rec.length == 5 &&
              rec.offset == 16);
        CHECK(fc_reader_next(&r, &rec) == FC_END);
        init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
        CHECK(fc_reader_records(&r, e, 3, 2, UINT64_MAX) == FC_OK);
        CHECK(fc_reader_next(&r, &rec) == FC_OK && rec.index == 2 && rec.length == 100);
        CHECK(fc_reader_next(&r, &rec) == FC_END);
        init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
        CHECK(fc_reader_records(&r, e, 3, 3, 3) == FC_OK);
        CHECK(fc_reader_next(&r, &rec) == FC_END);
        CHECK(fc_reader_records(&r, e, 3, 4, 5) == FC_ERR_ARG);
    }
    free(b.p);
}

static void test_index_errors(void)
{
    static const struct {
        const char *text;
        const char *message;
    } bad[] = {
        {"0 16\nx 5\n", "index line 2, column 1: expected a record offset"},
        {"0 16\n16\n", "index line 2, column 3: expected a space and the record size"},
        {"0 16\n16 \n", "index line 2, column 4: expected a record size"},
        {"0 16 7\n", "index line 1, column 6: expected the end of the line"},
        {"0 15\n", "index line 1, column 1: a record size is at least 16"},
        {"0 16\n8 16\n", "the record at offset 8 starts before the previous one ends (at 16)"},
        {"18446744073709551616 16\n", "index line 1, column 1: expected a record offset"},
        {"18446744073709551615 16\n", "the record would end past 2^64"},
        {"-1 16\n", "expected a record offset (a decimal number below 2^64) (found '-1 16')"},
    };
    size_t i, n;
    fc_index_entry e[4];
    fc_error err;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        fc_error_clear(&err);
        CHECK_MSG(fc_index_parse(bad[i].text, strlen(bad[i].text), e, 4, &n, &err) ==
                      FC_ERR_INDEX,
                  "%s", bad[i].text);
        CHECK_CONTAINS(err.message, bad[i].message);
    }
    /* a stale index: verify names the first difference */
    {
        buf b = {NULL, 0, 0};
        static const char stale[] = "0 16\n16 22\n";
        static const char short_index[] = "0 16\n";
        static const char long_index[] = "0 16\n16 21\n37 16\n";
        fc_reader r;
        buf_random_record(&b, 0);
        buf_random_record(&b, 5);
        CHECK(fc_index_parse(stale, strlen(stale), e, 4, &n, &err) == FC_OK);
        init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
        CHECK(fc_index_verify(&r, e, n, &err) == FC_ERR_INDEX);
        CHECK_CONTAINS(err.message, "index entry 1 says offset 16 size 22; record 1 of the "
                                    "file is at offset 16 with size 21");
        CHECK(fc_index_parse(short_index, strlen(short_index), e, 4, &n, &err) == FC_OK);
        init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
        CHECK(fc_index_verify(&r, e, n, &err) == FC_ERR_INDEX);
        CHECK_CONTAINS(err.message, "the index ends after 1 entry, but the file has a record "
                                    "at offset 16 (21 bytes)");
        CHECK(fc_index_parse(long_index, strlen(long_index), e, 4, &n, &err) == FC_OK);
        init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
        CHECK(fc_index_verify(&r, e, n, &err) == FC_ERR_INDEX);
        CHECK_CONTAINS(err.message, "the file ends after 2 records, but the index has 3 entries");
        free(b.p);
    }
}

static void test_seek_and_sync_basics(void)
{
    buf b = {NULL, 0, 0};
    fc_reader r;
    fc_record rec;
    unsigned char noise[1 << 16];
    buf_random_record(&b, 10);  /* at 0 */
    buf_random_record(&b, 20);  /* at 26 */
    buf_random_record(&b, 30);  /* at 62 */
    /* seek with the index known */
    init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
    CHECK(fc_reader_seek(&r, 26, 1) == FC_OK);
    CHECK(fc_reader_next(&r, &rec) == FC_OK && rec.offset == 26 && rec.index == 1);
    CHECK(fc_reader_index_known(&r));
    /* sync from inside record 0 finds record 1, indices from there */
    init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
    CHECK(fc_reader_sync(&r, 1) == FC_OK);
    CHECK(fc_reader_offset(&r) == 26 && !fc_reader_index_known(&r));
    CHECK(fc_reader_next(&r, &rec) == FC_OK && rec.offset == 26 && rec.index == 0);
    CHECK(fc_reader_next(&r, &rec) == FC_OK && rec.offset == 62 && rec.index == 1);
    CHECK(fc_reader_next(&r, &rec) == FC_END);
    /* a sync exactly at a record start keeps it */
    init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
    CHECK(fc_reader_sync(&r, 62) == FC_OK && fc_reader_offset(&r) == 62);
    /* past the last start: nothing */
    init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
    CHECK(fc_reader_sync(&r, 63) == FC_END);
    CHECK(fc_reader_next(&r, &rec) == FC_END);
    /* a limit: nothing whose header starts at or after it */
    init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
    CHECK(fc_reader_set_limit(&r, 62) == FC_OK);
    CHECK(fc_reader_next(&r, &rec) == FC_OK && fc_reader_next(&r, &rec) == FC_OK);
    CHECK(fc_reader_next(&r, &rec) == FC_END && fc_reader_offset(&r) == 62);
    /* seek to an offset that is not a record start: the read says so */
    init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
    CHECK(fc_reader_seek(&r, 5, 0) == FC_OK);
    CHECK(fc_reader_next(&r, &rec) == FC_ERR_CORRUPT);
    CHECK_CONTAINS(fc_reader_error(&r)->message, "corrupted record at 5: record 0");
    /* after a sync the messages say where indices count from */
    init_mem(&r, b.p, b.n - 1, FC_CRC_VERIFY);
    CHECK(fc_reader_sync(&r, 1) == FC_OK);
    CHECK(fc_reader_next(&r, &rec) == FC_OK);
    CHECK(fc_reader_next(&r, &rec) == FC_ERR_TRUNCATED);
    CHECK_CONTAINS(fc_reader_error(&r)->message,
                   "truncated record at 62: record 1 counted from offset 26");
    CHECK(fc_reader_error(&r)->record == FC_NO_INDEX && fc_reader_error(&r)->offset == 62);
    /* bad uses */
    init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
    CHECK(fc_reader_seek(&r, b.n + 1, 0) == FC_ERR_ARG);
    CHECK_CONTAINS(fc_reader_error(&r)->message, "cannot seek to offset 109: the stream has 108 bytes");
    init_mem(&r, b.p, b.n, FC_CRC_NONE);
    CHECK(fc_reader_sync(&r, 0) == FC_ERR_ARG);
    CHECK_CONTAINS(fc_reader_error(&r)->message, "cannot work under FC_CRC_NONE");
    {
        static unsigned char work[FC_READER_WORK_SIZE], rbuf[4096];
        fc_reader_options o;
        memset(&o, 0, sizeof o);
        o.compression = FC_COMPRESSION_GZIP;
        o.buffer = rbuf;
        o.buffer_size = sizeof rbuf;
        o.work = work;
        o.work_size = sizeof work;
        CHECK(fc_reader_init_mem(&r, b.p, b.n, &o, NULL) == FC_OK);
        CHECK(fc_reader_sync(&r, 0) == FC_ERR_UNSUPPORTED);
        CHECK_CONTAINS(fc_reader_error(&r)->message,
                       "fc_reader_sync needs an uncompressed stream in memory");
    }
    /* random bytes hold no record start */
    h_fill_random(noise, sizeof noise);
    init_mem(&r, noise, sizeof noise, FC_CRC_VERIFY);
    CHECK(fc_reader_sync(&r, 0) == FC_END);
    free(b.p);
}

static void test_seek_fd(void)
{
    buf b = {NULL, 0, 0};
    char path[] = "/tmp/featc-split-XXXXXX";
    int fd = mkstemp(path);
    fc_reader r;
    fc_record rec;
    fc_reader_options o;
    unsigned char rbuf[256];
    buf_random_record(&b, 10);
    buf_random_record(&b, 20);
    buf_random_record(&b, 30);
    CHECK(fd >= 0 && write(fd, b.p, b.n) == (ssize_t)b.n);
    memset(&o, 0, sizeof o);
    o.buffer = rbuf;
    o.buffer_size = sizeof rbuf;
    CHECK(fc_reader_init_fd(&r, fd, &o, NULL) == FC_OK);
    CHECK(fc_reader_seek(&r, 26, 1) == FC_OK);
    CHECK(fc_reader_next(&r, &rec) == FC_OK && rec.offset == 26 && rec.index == 1 &&
          rec.length == 20 && memcmp(rec.data, b.p + 38, 20) == 0);
    CHECK(fc_reader_next(&r, &rec) == FC_OK && rec.offset == 62);
    CHECK(fc_reader_next(&r, &rec) == FC_END);
    CHECK(fc_reader_seek(&r, 0, 0) == FC_OK);
    CHECK(fc_reader_set_limit(&r, 26) == FC_OK);
    CHECK(fc_reader_next(&r, &rec) == FC_OK && rec.offset == 0 && rec.length == 10);
    CHECK(fc_reader_next(&r, &rec) == FC_END);
    close(fd);
    unlink(path);
    free(b.p);
}

/* Synthetic files with every kind of record length. */
static void test_splits_synthetic(void)
{
    int round;
    for (round = 0; round < 12; round++) {
        buf b = {NULL, 0, 0};
        size_t n = (size_t)(h_rand() % 60), i;
        rec_list seq;
        fc_index_entry *idx;
        char name[64];
        for (i = 0; i < n; i++) {
            unsigned long long pick = h_rand() % 10;
            size_t len = pick < 2 ? 0 : pick < 7 ? (size_t)(h_rand() % 40)
                                   : pick < 9 ? (size_t)(h_rand() % 400)
                                              : (size_t)(h_rand() % 20000);
            buf_random_record(&b, len);
        }
        seq_read(b.p, b.n, FC_CRC_VERIFY, &seq);
        CHECK(seq.status == FC_END && seq.n == n);
        idx = index_of(&seq);
        snprintf(name, sizeof name, "synthetic file %d", round);
        CHECK(check_all_splits(b.p, b.n, 17, FC_CRC_VERIFY, idx, seq.n, name) == 0);
        free(idx);
        rl_free(&seq);
        free(b.p);
    }
}

/* Records that hold TFRecord streams: the checksum sync can take a record
 * inside a record for a record start; the chain test and then the junction
 * must catch every such guess, and the walk and the index never make one. */
static void test_splits_embedded_streams(void)
{
    int round;
    size_t corrected = 0, fooled_local = 0;
    for (round = 0; round < 10; round++) {
        buf b = {NULL, 0, 0};
        size_t n = 3 + (size_t)(h_rand() % 8), i;
        rec_list seq;
        fc_index_entry *idx;
        char name[64];
        for (i = 0; i < n; i++) {
            switch (h_rand() % 4) {
            case 0: buf_random_record(&b, (size_t)(h_rand() % 100)); break;
            case 1: buf_embedding_record(&b, 2 + (size_t)(h_rand() % 6), 60, 0, 0); break;
            case 2: buf_embedding_record(&b, 2 + (size_t)(h_rand() % 4), 60, 2, 1); break;
            default: buf_embedding_record(&b, 1 + (size_t)(h_rand() % 3), 60, 0, 1); break;
            }
        }
        /* and one large record that is almost all a stream, so that whole
         * splits lie inside it */
        buf_embedding_record(&b, 400, 80, 0, round & 1);
        buf_random_record(&b, 7);
        seq_read(b.p, b.n, FC_CRC_VERIFY, &seq);
        CHECK(seq.status == FC_END && seq.n == n + 2);
        idx = index_of(&seq);
        snprintf(name, sizeof name, "embedded streams %d", round);
        corrected += check_all_splits(b.p, b.n, 17, FC_CRC_VERIFY, idx, seq.n, name);
        /* the sync itself, at every offset of the file, returns a start the
         * chain before it confirms or a start inside a record */
        for (i = 0; i < b.n; i += 7) {
            int limited;
            for (limited = 0; limited <= 1; limited++) {
                fc_reader r;
                size_t j;
                int on_chain = 0;
                init_mem(&r, b.p, b.n, FC_CRC_VERIFY);
                if (limited)
                    fc_reader_set_limit(&r, i + 200);
                if (fc_reader_sync(&r, i) != FC_OK)
                    continue;
                for (j = 0; j < seq.n; j++)
                    on_chain |= seq.offset[j] == fc_reader_offset(&r);
                if (limited)
                    fooled_local += !on_chain;
                else
                    CHECK_MSG(on_chain, "sync at %zu took %llu, inside a record, with the chain "
                              "to the end of the file to test", i,
                              (unsigned long long)fc_reader_offset(&r));
            }
        }
        free(idx);
        rl_free(&seq);
        free(b.p);
    }
    /* the files are built so that the sync is fooled (else this test
     * would not test the junction), and every time the junction caught it */
    CHECK_MSG(corrected > 0, "no checksum guess was ever wrong: the files do not test the junction");
    CHECK(fooled_local > 0);
    printf("embedded streams: %zu wrong checksum guesses caught by the junction, %zu offsets "
           "where a sync with a limit 200 bytes on lands inside a record\n",
           corrected, fooled_local);
}

/* Damaged files: splits fail where the sequential read does, with its
 * message, under each CRC policy. */
static void test_splits_damaged(void)
{
    int round;
    for (round = 0; round < 40; round++) {
        buf b = {NULL, 0, 0};
        size_t n = 5 + (size_t)(h_rand() % 30), i, victim;
        rec_list seq;
        fc_index_entry *idx;
        size_t len;
        char name[96];
        fc_crc_policy policy = round % 3 == 2 ? FC_CRC_SKIP_CORRUPT : FC_CRC_VERIFY;
        for (i = 0; i < n; i++)
            buf_random_record(&b, (size_t)(h_rand() % 300));
        seq_read(b.p, b.n, FC_CRC_VERIFY, &seq);
        idx = index_of(&seq); /* the index of the intact file */
        victim = (size_t)(h_rand() % n);
        len = b.n;
        switch (round % 4) {
        case 0: /* a length byte: the length CRC fails */
            b.p[seq.offset[victim] + (size_t)(h_rand() % 8)] ^= 0x10;
            break;
        case 1: /* a data or footer byte: the data CRC fails */
            b.p[seq.offset[victim] + 12 + (size_t)(h_rand() % (seq.length[victim] + 4))] ^= 0x01;
            break;
        case 2: /* cut inside a record */
            len = (size_t)seq.offset[victim] + 1 + (size_t)(h_rand() % (seq.length[victim] + 15));
            break;
        default: /* a length CRC byte */
            b.p[seq.offset[victim] + 8 + (size_t)(h_rand() % 4)] ^= 0x80;
            break;
        }
        snprintf(name, sizeof name, "damage %d (kind %d, record %zu of %zu)", round, round % 4,
                 victim, n);
        check_all_splits(b.p, len, 17, policy, idx, seq.n, name);
        {
            rec_list dmg;
            seq_read(b.p, len, policy, &dmg);
            CHECK_MSG(dmg.status != FC_END || policy == FC_CRC_SKIP_CORRUPT, "%s reads clean", name);
            rl_free(&dmg);
        }
        free(idx);
        rl_free(&seq);
        free(b.p);
    }
}

/* Inflates a whole ZLIB or GZIP stream (members concatenated). */
static unsigned char *inflate_all(const unsigned char *src, size_t n, size_t *out_len)
{
    z_stream zs;
    size_t cap = n * 4 + 4096, len = 0;
    unsigned char *out = (unsigned char *)malloc(cap);
    int ret = Z_OK;
    memset(&zs, 0, sizeof zs);
    if (out == NULL || inflateInit2(&zs, 15 + 32) != Z_OK)
        abort();
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.avail_in = (uInt)n;
    while (zs.avail_in > 0 || ret != Z_STREAM_END) {
        if (len == cap) {
            cap *= 2;
            out = (unsigned char *)realloc(out, cap);
            if (out == NULL)
                abort();
        }
        zs.next_out = out + len;
        zs.avail_out = (uInt)(cap - len);
        ret = inflate(&zs, Z_NO_FLUSH);
        len = cap - zs.avail_out;
        if (ret == Z_STREAM_END && zs.avail_in > 0)
            ret = inflateReset(&zs);
        else if (ret != Z_OK && ret != Z_STREAM_END)
            break;
        if (ret == Z_STREAM_END && zs.avail_in == 0)
            break;
    }
    inflateEnd(&zs);
    *out_len = len;
    return out;
}

/* Every corpus file (compressed ones as their decompressed stream), cut
 * into 1..17 splits by every method. */
static void test_splits_corpus(void)
{
    const char *corpus = getenv("FEATC_CORPUS");
    DIR *d;
    struct dirent *de;
    size_t files = 0;
    CHECK_MSG(corpus != NULL, "FEATC_CORPUS is not set");
    if (corpus == NULL || (d = opendir(corpus)) == NULL)
        return;
    while ((de = readdir(d)) != NULL) {
        char path[1024];
        fc_mapped_file map;
        const unsigned char *data;
        unsigned char *plain = NULL;
        size_t len;
        rec_list seq;
        fc_index_entry *idx;
        if (de->d_name[0] == '.' || strstr(de->d_name, "MANIFEST") != NULL ||
            strcmp(de->d_name, "NOTICE") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", corpus, de->d_name);
        if (fc_map_file(path, &map, NULL) != FC_OK) {
            CHECK_MSG(0, "cannot map %s", path);
            continue;
        }
        data = map.data;
        len = map.size;
        if (len >= 2 && ((data[0] == 0x1f && data[1] == 0x8b) ||
                         (data[0] == 0x78 && ((data[0] << 8) | data[1]) % 31 == 0))) {
            plain = inflate_all(data, len, &len);
            data = plain;
        }
        seq_read(data, len, FC_CRC_VERIFY, &seq);
        idx = seq.status == FC_END ? index_of(&seq) : NULL;
        check_all_splits(data, len, 17, FC_CRC_VERIFY, idx, seq.n, de->d_name);
        free(idx);
        rl_free(&seq);
        free(plain);
        fc_unmap_file(&map);
        files++;
    }
    closedir(d);
    CHECK_MSG(files >= 30, "only %zu corpus files", files);
}

/* Writes n random records as GZIP with the member options; the member
 * starts the writer reports go into *members. */
static unsigned char *write_gzip(size_t n, uint64_t member_records, uint64_t member_bytes,
                                 size_t *out_len, fc_gzip_member **members, size_t *nmembers,
                                 rec_list *plain)
{
    static unsigned char work[FC_DEFLATE_ARENA_SIZE];
    size_t cap = n * 700 + 4096, i;
    unsigned char *out = (unsigned char *)malloc(cap), rec[600];
    fc_writer w;
    fc_writer_options o;
    uint64_t seen = 0, offset = 0;
    *members = (fc_gzip_member *)malloc((n + 1) * sizeof **members);
    *nmembers = 0;
    rl_init(plain);
    memset(&o, 0, sizeof o);
    o.compression = FC_COMPRESSION_GZIP;
    o.member_records = member_records;
    o.member_bytes = member_bytes;
    o.work = work;
    o.work_size = sizeof work;
    if (out == NULL || *members == NULL || fc_writer_init_mem(&w, out, cap, &o, NULL) != FC_OK)
        abort();
    for (i = 0; i < n; i++) {
        fc_record r;
        size_t len = (size_t)(h_rand() % 5 == 0 ? h_rand() % 600 : h_rand() % 60);
        /* compressible, so that members are much smaller than their records */
        memset(rec, (int)(h_rand() & 3), len);
        if (len > 4)
            h_fill_random(rec, 4);
        CHECK(fc_writer_write(&w, rec, len) == FC_OK);
        if (fc_writer_members(&w) != seen) {
            seen = fc_writer_members(&w);
            (*members)[(*nmembers)++] = fc_writer_member(&w);
        }
        r.offset = offset;
        r.length = len;
        r.index = i;
        rl_add(plain, &r);
        offset += len + FC_RECORD_OVERHEAD;
    }
    CHECK(fc_writer_close(&w) == FC_OK);
    *out_len = fc_writer_size(&w);
    return out;
}

static void init_gzip(fc_reader *r, const unsigned char *data, size_t len)
{
    static unsigned char work[FC_READER_WORK_SIZE], rbuf[1 << 16];
    fc_reader_options o;
    memset(&o, 0, sizeof o);
    o.compression = FC_COMPRESSION_AUTO;
    o.buffer = rbuf;
    o.buffer_size = sizeof rbuf;
    o.work = work;
    o.work_size = sizeof work;
    if (fc_reader_init_mem(r, data, len, &o, NULL) != FC_OK)
        abort();
}

static void test_seekable_gzip(void)
{
    static const struct {
        size_t n;
        uint64_t records, bytes;
    } cases[] = {{200, 7, 0}, {300, 0, 2000}, {50, 1, 0}, {120, 0, 0}, {90, 16, 100000}};
    size_t c;
    for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t len, nm, i, k;
        fc_gzip_member *wm, log[400];
        rec_list plain, seq;
        fc_reader r;
        uint64_t count = 0;
        unsigned char *gz = write_gzip(cases[c].n, cases[c].records, cases[c].bytes, &len, &wm,
                                       &nm, &plain);
        if (cases[c].records != 0)
            CHECK(nm == (cases[c].n + cases[c].records - 1) / cases[c].records);
        if (cases[c].records == 0 && cases[c].bytes == 0)
            CHECK(nm == 1);
        CHECK(nm > 0 && wm[0].offset == 0 && wm[0].stream_offset == 0 && wm[0].first_record == 0);
        /* the sequential read: the same records, and the reader meets the
         * members the writer made, where it made them */
        rl_init(&seq);
        init_gzip(&r, gz, len);
        fc_reader_log_members(&r, log, 400);
        drain(&r, &seq, &count);
        CHECK(seq.status == FC_END && seq.n == plain.n);
        for (i = 0; i < seq.n && i < plain.n; i++)
            CHECK(seq.offset[i] == plain.offset[i] && seq.length[i] == plain.length[i]);
        CHECK_MSG(fc_reader_members(&r) == nm, "%llu members read, %zu written",
                  (unsigned long long)fc_reader_members(&r), nm);
        for (i = 0; i < nm && i < 400; i++)
            CHECK_MSG(log[i].offset == wm[i].offset && log[i].stream_offset == wm[i].stream_offset,
                      "member %zu: read at %llu/%llu, written at %llu/%llu", i,
                      (unsigned long long)log[i].offset, (unsigned long long)log[i].stream_offset,
                      (unsigned long long)wm[i].offset, (unsigned long long)wm[i].stream_offset);
        /* from each member to the end */
        for (i = 0; i < nm; i++) {
            rec_list part;
            size_t first = (size_t)wm[i].first_record, j;
            rl_init(&part);
            init_gzip(&r, gz, len);
            CHECK(fc_reader_seek_member(&r, &wm[i]) == FC_OK);
            count = wm[i].first_record;
            drain(&r, &part, &count);
            CHECK(part.status == FC_END && part.n == plain.n - first);
            for (j = 0; j < part.n && first + j < plain.n; j++)
                CHECK(part.offset[j] == plain.offset[first + j]);
            rl_free(&part);
        }
        /* every way of cutting the compressed bytes into k splits */
        for (k = 1; k <= 17; k++) {
            rec_list all;
            uint64_t cnt = 0;
            rl_init(&all);
            for (i = 0; i < k; i++) {
                uint64_t a = (uint64_t)len * i / k, b = (uint64_t)len * (i + 1) / k;
                init_gzip(&r, gz, len);
                CHECK(fc_reader_range_members(&r, wm, nm, a, b) == FC_OK);
                if (drain(&r, &all, &cnt) != FC_END)
                    CHECK_MSG(0, "split %zu of %zu: %s", i, k, fc_reader_error(&r)->message);
            }
            CHECK_MSG(all.n == plain.n, "%zu splits: %zu records, want %zu", k, all.n, plain.n);
            for (i = 0; i < all.n && i < plain.n; i++)
                CHECK(all.offset[i] == plain.offset[i]);
            rl_free(&all);
        }
        /* gzip and Python's gzip module read it as one stream */
        {
            char path[] = "/tmp/featc-members-XXXXXX", cmd[512];
            int fd = mkstemp(path);
            CHECK(fd >= 0 && write(fd, gz, len) == (ssize_t)len);
            close(fd);
            snprintf(cmd, sizeof cmd, "gzip -t < %s", path);
            CHECK(system(cmd) == 0);
            snprintf(cmd, sizeof cmd,
                     "${PYTHON:-python3} -c 'import gzip,sys; "
                     "sys.exit(len(gzip.open(\"%s\").read()) != %llu)'",
                     path, (unsigned long long)(plain.n == 0 ? 0
                                                : plain.offset[plain.n - 1] +
                                                      plain.length[plain.n - 1] + 16));
            CHECK(system(cmd) == 0);
            unlink(path);
        }
        /* a member that does not start at a record, and a reader that is
         * not GZIP, are refused */
        {
            fc_gzip_member bad = wm[0];
            bad.first_record = FC_NO_INDEX;
            init_gzip(&r, gz, len);
            CHECK(fc_reader_seek_member(&r, &bad) == FC_ERR_ARG);
            CHECK_CONTAINS(fc_reader_error(&r)->message, "that member starts inside a record");
        }
        rl_free(&seq);
        rl_free(&plain);
        free(wm);
        free(gz);
    }
    {
        fc_writer w;
        fc_writer_options o;
        unsigned char out[64];
        memset(&o, 0, sizeof o);
        o.compression = FC_COMPRESSION_ZLIB;
        o.member_records = 3;
        CHECK(fc_writer_init_mem(&w, out, sizeof out, &o, NULL) == FC_ERR_ARG);
        CHECK_CONTAINS(fc_writer_error(&w)->message, "member_records and member_bytes are for GZIP");
    }
}

/* ------------------------------------------------------------ the pool */

typedef struct pool_ctx {
    int bad_index; /* a record whose index is not its split's count */
} pool_ctx;

static fc_status pool_record(void *ctx, void *state, fc_pool_split *split, const fc_record *rec,
                             fc_error *err)
{
    rec_list *l = (rec_list *)split->user;
    uint64_t *calls = (uint64_t *)state;
    (void)err;
    if (l == NULL) {
        l = (rec_list *)malloc(sizeof *l);
        if (l == NULL)
            abort();
        rl_init(l);
        split->user = l;
    }
    if (rec->index < split->first_index + l->n) /* skipped records may come between */
        ((pool_ctx *)ctx)->bad_index++;
    rl_add(l, rec);
    (*calls)++;
    return FC_OK;
}

static void write_path(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL && fwrite(p, 1, n, f) == n && fclose(f) == 0);
}

/* Splits the pools read from a whole GZIP or ZLIB file inflated on a
 * thread of their own (fc_pool_split.inflated_ahead 1), and of those, the
 * ones that read it again on the worker's thread (2). */
static unsigned pool_ahead, pool_ahead_fell_back;

/* The pool over files, every way: its splits, put back in file order,
 * hold each file's sequential records and end with its ending. */
static void check_pool(const char *const *paths, size_t n, fc_crc_policy policy, const char *what)
{
    static const unsigned threads[] = {1, 2, 3};
    static const uint64_t sizes[] = {0, 997, 4096, 65536};
    size_t ti, si, k;
    rec_list *seq = (rec_list *)calloc(n, sizeof *seq);
    for (k = 0; k < n; k++) {
        fc_input in;
        fc_input_options io;
        fc_record rec;
        fc_status st;
        memset(&io, 0, sizeof io);
        io.compression = FC_COMPRESSION_AUTO;
        io.crc_policy = policy;
        rl_init(&seq[k]);
        st = fc_input_open(&in, paths[k], &io);
        while (st == FC_OK && (st = fc_input_next(&in, &rec)) == FC_OK)
            rl_add(&seq[k], &rec);
        seq[k].status = st;
        seq[k].err = in.err;
        fc_input_close(&in);
    }
    for (ti = 0; ti < 3; ti++)
        for (si = 0; si < 4; si++) {
            int ordered = (int)((ti + si) & 1);
            fc_pool_options o;
            fc_pool_work w;
            fc_pool *pool;
            fc_pool_split *sp, **got;
            pool_ctx ctx = {0};
            size_t nsplits, handed = 0, i;
            fc_error err;
            memset(&o, 0, sizeof o);
            o.threads = threads[ti];
            o.ordered = ordered;
            o.split_bytes = sizes[si];
            o.compression = FC_COMPRESSION_AUTO;
            o.crc_policy = policy;
            o.inflate_ahead = 1; /* (used where there are fewer splits than threads) */
            w.ctx = &ctx;
            w.state_size = sizeof(uint64_t);
            w.record = pool_record;
            w.state_free = NULL;
            if (fc_pool_open(&pool, paths, n, &o, &w, &err) != FC_OK) {
                CHECK_MSG(0, "%s: fc_pool_open: %s", what, err.message);
                continue;
            }
            nsplits = fc_pool_splits(pool);
            got = (fc_pool_split **)calloc(nsplits + 1, sizeof *got);
            while (fc_pool_next(pool, &sp) == FC_OK) {
                size_t at = 0;
                pool_ahead += sp->inflated_ahead != 0;
                pool_ahead_fell_back += sp->inflated_ahead == 2;
                /* its place among the splits: file, then split */
                for (i = 0; i < handed; i++)
                    if (got[i]->file < sp->file ||
                        (got[i]->file == sp->file && got[i]->split < sp->split))
                        at = i + 1;
                if (ordered)
                    CHECK_MSG(at == handed, "%s: ordered pool handed split %zu of file %zu "
                              "out of order", what, sp->split, sp->file);
                if (handed < nsplits)
                    got[handed++] = sp;
            }
            CHECK_MSG(handed == nsplits, "%s: %zu splits handed out of %zu", what, handed, nsplits);
            /* file order, then compare with the sequential reads */
            for (i = 1; i < handed; i++) {
                size_t j = i;
                while (j > 0 && (got[j - 1]->file > got[j]->file ||
                                 (got[j - 1]->file == got[j]->file &&
                                  got[j - 1]->split > got[j]->split))) {
                    fc_pool_split *tmp = got[j - 1];
                    got[j - 1] = got[j];
                    got[j] = tmp;
                    j--;
                }
            }
            for (k = 0, i = 0; k < n; k++) {
                rec_list all;
                char name[300];
                rl_init(&all);
                for (; i < handed && got[i]->file == k; i++) {
                    rec_list *l = (rec_list *)got[i]->user;
                    size_t r;
                    for (r = 0; l != NULL && r < l->n; r++) {
                        fc_record rec;
                        rec.offset = l->offset[r];
                        rec.length = l->length[r];
                        rec.index = l->index[r];
                        if (all.status == FC_END)
                            rl_add(&all, &rec);
                    }
                    if (all.status == FC_END && got[i]->status != FC_END) {
                        all.status = got[i]->status;
                        all.err = got[i]->err;
                    }
                    if (l != NULL) {
                        rl_free(l);
                        free(l);
                    }
                }
                snprintf(name, sizeof name, "%s: pool of %u threads, %s, splits of %llu: %s", what,
                         threads[ti], ordered ? "ordered" : "as finished",
                         (unsigned long long)sizes[si], paths[k]);
                rl_same(&all, &seq[k], 1, name);
                rl_free(&all);
            }
            CHECK(ctx.bad_index == 0);
            free(got);
            fc_pool_close(pool);
        }
    for (k = 0; k < n; k++)
        rl_free(&seq[k]);
    free(seq);
}

static void test_pool(void)
{
    const char *corpus = getenv("FEATC_CORPUS");
    static const char *const names[] = {
        "tfx__mnist.tfrecord", "lingvo__wmt14_ende_wpm_32k_test.tfrecord",
        "tfx__penguin_Split-eval_data_tfrecord-00000-of-00001.gz",
        "tf-models-CRLF-DAMAGED__pets_examples.record", "pwnall-tfrecord__singles.tfrecords"};
    char paths[9][512];
    const char *list[9];
    size_t i;
    buf b = {NULL, 0, 0};
    if (corpus == NULL) {
        CHECK_MSG(0, "FEATC_CORPUS is not set");
        return;
    }
    for (i = 0; i < 5; i++) {
        snprintf(paths[i], sizeof paths[i], "%s/%s", corpus, names[i]);
        list[i] = paths[i];
    }
    /* records holding TFRecord streams, large ones among them */
    for (i = 0; i < 60; i++) {
        if (i % 3 == 0)
            buf_embedding_record(&b, 2 + (size_t)(h_rand() % (i % 2 ? 30 : 200)), 200, (int)(i % 2), (int)(i & 1));
        else
            buf_random_record(&b, (size_t)(h_rand() % 3000));
    }
    snprintf(paths[5], sizeof paths[5], "/tmp/featc-pool-emb-%d.tfrecord", (int)getpid());
    write_path(paths[5], b.p, b.n);
    list[5] = paths[5];
    /* the same, damaged in a length CRC and cut short */
    b.p[b.n / 2] ^= 0x40;
    snprintf(paths[6], sizeof paths[6], "/tmp/featc-pool-dmg-%d.tfrecord", (int)getpid());
    write_path(paths[6], b.p, b.n - 5);
    list[6] = paths[6];
    /* a seekable GZIP file with its member index */
    {
        size_t len, nm, at = 0;
        fc_gzip_member *wm;
        rec_list plain;
        unsigned char *gz = write_gzip(3000, 50, 0, &len, &wm, &nm, &plain);
        char *text = (char *)malloc(nm * FC_MEMBERS_LINE_MAX + 1), mpath[600];
        snprintf(paths[7], sizeof paths[7], "/tmp/featc-pool-gz-%d.tfrecord.gz", (int)getpid());
        write_path(paths[7], gz, len);
        for (i = 0; i < nm; i++)
            at += fc_members_line(text + at, FC_MEMBERS_LINE_MAX, &wm[i]);
        snprintf(mpath, sizeof mpath, "%s.members", paths[7]);
        write_path(mpath, (const unsigned char *)text, at);
        list[7] = paths[7];
        free(text);
        free(gz);
        free(wm);
        rl_free(&plain);
    }
    check_pool(list, 8, FC_CRC_VERIFY, "verify");
    /* over bytes in memory: the same records as the sequential reads */
    {
        const void *data[3];
        size_t sizes[3], k;
        fc_mapped_file maps[3];
        fc_pool_options o;
        fc_pool_work w;
        fc_pool *pool;
        fc_pool_split *sp;
        pool_ctx ctx = {0};
        uint64_t per_file[3] = {0, 0, 0};
        fc_error err;
        static const int pick[3] = {5, 0, 6}; /* embedded streams, mnist, damaged */
        for (k = 0; k < 3; k++) {
            CHECK(fc_map_file(list[pick[k]], &maps[k], NULL) == FC_OK);
            data[k] = maps[k].data;
            sizes[k] = maps[k].size;
        }
        memset(&o, 0, sizeof o);
        o.threads = 2;
        o.ordered = 1;
        o.split_bytes = 2000;
        o.compression = FC_COMPRESSION_AUTO;
        memset(&w, 0, sizeof w);
        w.ctx = &ctx;
        w.state_size = sizeof(uint64_t);
        w.record = pool_record;
        CHECK(fc_pool_open_mem(&pool, data, sizes, 3, &o, &w, &err) == FC_OK);
        while (fc_pool_next(pool, &sp) == FC_OK) {
            rec_list *l = (rec_list *)sp->user;
            if (l != NULL) {
                if (sp->status != FC_ERR_STATE) /* after a failure: not the file's */
                    per_file[sp->file] += l->n;
                rl_free(l);
                free(l);
            }
            if (sp->status != FC_END && sp->status != FC_ERR_STATE)
                CHECK_MSG(sp->file == 2, "buffer %zu: %s", sp->file, sp->err.message);
        }
        fc_pool_close(pool);
        for (k = 0; k < 3; k++) {
            rec_list seq;
            seq_read(maps[k].data, maps[k].size, FC_CRC_VERIFY, &seq);
            CHECK_MSG(per_file[k] == seq.n, "buffer %zu: %llu records, sequential %zu", k,
                      (unsigned long long)per_file[k], seq.n);
            rl_free(&seq);
            fc_unmap_file(&maps[k]);
        }
    }
    check_pool(list + 3, 4, FC_CRC_SKIP_CORRUPT, "skip");
    {
        char mpath[600];
        snprintf(mpath, sizeof mpath, "%s.members", paths[7]);
        unlink(mpath);
    }
    for (i = 5; i < 8; i++)
        unlink(paths[i]);
    free(b.p);
}

/* The bench corpora (make bench's generator, FEATC_BENCH_DATA): each cut
 * into 1..17 splits by every method, and as seekable GZIP (64 KiB members)
 * into 1..17 splits by member. */
static void test_splits_bench(void)
{
    static const char *const files[] = {"tutorial.tfrecord", "wide.tfrecord", "image.tfrecord",
                                        "sequence.tfrecord"};
    static unsigned char work[FC_DEFLATE_ARENA_SIZE];
    const char *dir = getenv("FEATC_BENCH_DATA");
    size_t f;
    CHECK_MSG(dir != NULL, "FEATC_BENCH_DATA is not set");
    for (f = 0; dir != NULL && f < 4; f++) {
        char path[1024];
        fc_mapped_file map;
        rec_list seq;
        fc_index_entry *idx;
        snprintf(path, sizeof path, "%s/%s", dir, files[f]);
        if (fc_map_file(path, &map, NULL) != FC_OK) {
            CHECK_MSG(0, "cannot map %s", path);
            continue;
        }
        seq_read(map.data, map.size, FC_CRC_VERIFY, &seq);
        CHECK(seq.status == FC_END && seq.n > 0);
        idx = index_of(&seq);
        check_all_splits(map.data, map.size, 17, FC_CRC_VERIFY, idx, seq.n, files[f]);
        if (f < 2) {
            /* seekable GZIP of the same records, split by member */
            size_t cap = map.size + map.size / 2 + 65536, len, nm = 0, i, k;
            unsigned char *gz = (unsigned char *)malloc(cap);
            fc_gzip_member *wm = (fc_gzip_member *)malloc((map.size / 65536 + 2) * sizeof *wm);
            fc_writer w;
            fc_writer_options o;
            memset(&o, 0, sizeof o);
            o.compression = FC_COMPRESSION_GZIP;
            o.member_bytes = 65536;
            o.level = 1;
            o.work = work;
            o.work_size = sizeof work;
            if (gz == NULL || wm == NULL || fc_writer_init_mem(&w, gz, cap, &o, NULL) != FC_OK)
                abort();
            for (i = 0; i < seq.n; i++) {
                uint64_t before = fc_writer_members(&w);
                CHECK(fc_writer_write(&w, map.data + seq.offset[i] + 12, seq.length[i]) == FC_OK);
                if (fc_writer_members(&w) != before)
                    wm[nm++] = fc_writer_member(&w);
            }
            CHECK(fc_writer_close(&w) == FC_OK);
            len = fc_writer_size(&w);
            for (k = 1; k <= 17; k++) {
                rec_list all;
                uint64_t cnt = 0;
                rl_init(&all);
                for (i = 0; i < k; i++) {
                    fc_reader r;
                    init_gzip(&r, gz, len);
                    CHECK(fc_reader_range_members(&r, wm, nm, (uint64_t)len * i / k,
                                                  (uint64_t)len * (i + 1) / k) == FC_OK);
                    if (drain(&r, &all, &cnt) != FC_END)
                        CHECK_MSG(0, "%s.gz split %zu of %zu: %s", files[f], i, k,
                                  fc_reader_error(&r)->message);
                }
                rl_same(&all, &seq, 1, files[f]);
                rl_free(&all);
            }
            free(gz);
            free(wm);
        }
        free(idx);
        rl_free(&seq);
        fc_unmap_file(&map);
    }
}

/* ------------------------------------------- parts of a seekable stream */

/* A pull source over bytes in memory that seek can move (what a URL's
 * range requests are to the Python layer); counts the bytes it gave. */
typedef struct mem_stream {
    const unsigned char *data;
    size_t len, pos, given, seeks;
} mem_stream;

static fc_status ms_pull(void *ctx, void *dst, size_t n, size_t *got, fc_error *err)
{
    mem_stream *m = (mem_stream *)ctx;
    size_t k = m->len - m->pos < n ? m->len - m->pos : n;
    (void)err;
    if (k > 0)
        memcpy(dst, m->data + m->pos, k);
    m->pos += k;
    m->given += k;
    *got = k;
    return FC_OK;
}

static fc_status ms_seek(void *ctx, uint64_t offset, fc_error *err)
{
    mem_stream *m = (mem_stream *)ctx;
    if (offset > m->len) {
        fc_msg e = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, offset);
        fc_msg_str(&e, "seek past the end");
        return FC_ERR_IO;
    }
    m->pos = (size_t)offset;
    m->seeks++;
    return FC_OK;
}

/* Index or member-list text, as featc index writes it. */
static char *index_text(const fc_index_entry *e, size_t n, const fc_gzip_member *m, size_t nm,
                        size_t *len)
{
    size_t cap = (n + nm + 1) * 64, used = 0, i;
    char *t = (char *)malloc(cap);
    if (t == NULL)
        abort();
    for (i = 0; i < n; i++)
        used += fc_index_line(t + used, cap - used, &e[i]);
    for (i = 0; i < nm; i++)
        used += (size_t)snprintf(t + used, cap - used, "%llu %llu %llu\n",
                                 (unsigned long long)m[i].offset,
                                 (unsigned long long)m[i].stream_offset,
                                 (unsigned long long)m[i].first_record);
    *len = used;
    return t;
}

/* The records of the input just opened (with status s) into l, and its
 * ending; closes it. */
static fc_status input_drain(fc_input *in, fc_status s, rec_list *l)
{
    fc_record rec;
    while (s == FC_OK && (s = fc_input_next(in, &rec)) == FC_OK)
        rl_add(l, &rec);
    if (s != FC_END) {
        l->status = s;
        l->err = in->err;
    }
    fc_input_close(in);
    return s;
}

/* Reads part (i of k) of data through fc_input_open_pull_seekable into l;
 * the stream's bytes given into *given. */
static fc_status pull_part(const unsigned char *data, size_t len, const char *text,
                           size_t tlen, size_t i, size_t k, rec_list *l, size_t *given)
{
    fc_input in;
    fc_input_options o;
    mem_stream m;
    fc_status s;
    memset(&o, 0, sizeof o);
    memset(&m, 0, sizeof m);
    m.data = data;
    m.len = len;
    o.compression = FC_COMPRESSION_AUTO;
    o.part = FC_PART_SPLIT;
    o.part_a = i;
    o.part_b = k;
    o.index_path = "the index";
    o.index_text = text;
    o.index_len = tlen;
    s = input_drain(&in, fc_input_open_pull_seekable(&in, "stream", ms_pull, ms_seek, &m, len,
                                                      &o),
                    l);
    *given += m.given;
    return s;
}

static void test_pull_seekable(void)
{
    const char *corpus = getenv("FEATC_CORPUS");
    char path[1024];
    fc_mapped_file map;
    rec_list seq, sp;
    fc_index_entry *idx;
    size_t tlen, k, i, given;
    char *text;
    fc_input in;
    fc_input_options o;
    mem_stream m;
    fc_status s;
    if (corpus == NULL)
        return;
    /* uncompressed, placed by its index: each split is the walk's, records
     * with the file's offsets and numbers, and reads little past its end */
    snprintf(path, sizeof path, "%s/tfx__mnist.tfrecord", corpus);
    if (fc_map_file(path, &map, NULL) != FC_OK) {
        CHECK_MSG(0, "cannot map %s", path);
        return;
    }
    seq_read(map.data, map.size, FC_CRC_VERIFY, &seq);
    CHECK(seq.status == FC_END && seq.n == 1000);
    idx = index_of(&seq);
    text = index_text(idx, seq.n, NULL, 0, &tlen);
    for (k = 1; k <= 9; k += 4) {
        rl_init(&sp);
        given = 0;
        for (i = 0; i < k; i++)
            CHECK_MSG(pull_part(map.data, map.size, text, tlen, i, k, &sp, &given) == FC_END,
                      "pull split %zu of %zu: %s", i, k, sp.err.message);
        CHECK_MSG(sp.n == seq.n && memcmp(sp.offset, seq.offset, seq.n * sizeof *sp.offset) == 0 &&
                      memcmp(sp.index, seq.index, seq.n * sizeof *sp.index) == 0 &&
                      memcmp(sp.length, seq.length, seq.n * sizeof *sp.length) == 0,
                  "%zu pull splits: %zu records, the file's %zu", k, sp.n, seq.n);
        CHECK_MSG(given <= map.size + k * (256u * 1024u + 12u),
                  "%zu pull splits took %zu bytes of %zu", k, given, map.size);
        rl_free(&sp);
    }
    /* an index that lies (two records as one entry): the split that meets
     * it fails with FC_ERR_INDEX; the others read */
    idx[600].size += idx[601].size;
    memmove(&idx[601], &idx[602], (seq.n - 602) * sizeof *idx);
    free(text);
    text = index_text(idx, seq.n - 1, NULL, 0, &tlen);
    for (i = 0, k = 0; i < 5; i++) {
        rl_init(&sp);
        given = 0;
        if (pull_part(map.data, map.size, text, tlen, i, 5, &sp, &given) != FC_END) {
            k++;
            CHECK_MSG(sp.status == FC_ERR_INDEX && strstr(sp.err.message, "index entry 600"),
                      "a lying index: %s", sp.err.message);
        }
        rl_free(&sp);
    }
    CHECK_MSG(k == 1, "a lying index failed %zu splits of 5", k);
    /* no index: a part of a stream is refused, saying why; no seek
     * function: likewise */
    memset(&o, 0, sizeof o);
    memset(&m, 0, sizeof m);
    m.data = map.data;
    m.len = map.size;
    o.part = FC_PART_SPLIT;
    o.part_a = 1;
    o.part_b = 3;
    s = fc_input_open_pull_seekable(&in, "stream", ms_pull, ms_seek, &m, map.size, &o);
    CHECK_MSG(s == FC_ERR_UNSUPPORTED && strstr(in.err.message, "needs its index") != NULL,
              "a part without an index: %d %s", (int)s, in.err.message);
    fc_input_close(&in);
    o.index_path = "the index";
    o.index_text = text;
    o.index_len = tlen;
    s = fc_input_open_pull(&in, "stream", ms_pull, &m, &o);
    CHECK(s == FC_ERR_UNSUPPORTED);
    fc_input_close(&in);
    free(text);
    free(idx);
    rl_free(&seq);
    fc_unmap_file(&map);

    /* GZIP, placed by its member list */
    {
        size_t len, nm;
        fc_gzip_member *wm;
        rec_list plain;
        unsigned char *gz = write_gzip(300, 0, 2000, &len, &wm, &nm, &plain);
        text = index_text(NULL, 0, wm, nm, &tlen);
        for (k = 1; k <= 7; k += 3) {
            rl_init(&sp);
            given = 0;
            for (i = 0; i < k; i++)
                CHECK_MSG(pull_part(gz, len, text, tlen, i, k, &sp, &given) == FC_END,
                          "gzip pull split %zu of %zu: %s", i, k, sp.err.message);
            CHECK_MSG(sp.n == plain.n &&
                          memcmp(sp.offset, plain.offset, plain.n * sizeof *sp.offset) == 0 &&
                          memcmp(sp.index, plain.index, plain.n * sizeof *sp.index) == 0,
                      "%zu gzip pull splits: %zu records of %zu", k, sp.n, plain.n);
            rl_free(&sp);
        }
        free(text);
        free(wm);
        free(gz);
        rl_free(&plain);
    }
}

/* fc_input_gather against fc_input_next over the same file: the same
 * records (index, offset, length, bytes), in order, with the same end, for
 * batches of 1, 7, 256 and 4096; each gather's views checked before the
 * next gather.  Over a file read whole (the kept records move to the
 * buffer's front when it makes room; a record that does not fit beside
 * them ends the gather short; a record larger than the buffer grows it,
 * first in a gather), a GZIP file, a damaged copy, and a part (mapped: in
 * place). */
typedef struct gather_case {
    const char *what;
    const char *path;
    fc_input_part part;
    uint64_t a, b;
} gather_case;

static void check_gather(const gather_case *c, size_t bsize, size_t *shorts)
{
    fc_input_options o;
    fc_input seq, gat;
    fc_record one, *recs = (fc_record *)malloc(bsize * sizeof *recs);
    fc_status s1 = FC_OK, s2;
    size_t n, k, total = 0;
    memset(&o, 0, sizeof o);
    o.compression = FC_COMPRESSION_AUTO;
    o.part = c->part;
    o.part_a = c->a;
    o.part_b = c->b;
    if (recs == NULL)
        abort();
    CHECK_MSG(fc_input_open(&seq, c->path, &o) == FC_OK, "%s: %s", c->what, seq.err.message);
    CHECK_MSG(fc_input_open(&gat, c->path, &o) == FC_OK, "%s: %s", c->what, gat.err.message);
    do {
        s2 = fc_input_gather(&gat, recs, bsize, &n);
        CHECK_MSG(n <= bsize && (s2 != FC_OK || n >= 1), "%s: gather of %zu gave %zu", c->what,
                  bsize, n);
        if (s2 == FC_OK && n < bsize)
            ++*shorts;
        for (k = 0; k < n; k++) {
            s1 = fc_input_next(&seq, &one);
            if (s1 != FC_OK) {
                CHECK_MSG(0, "%s: gather gave record %zu, next ended", c->what, total + k);
                break;
            }
            CHECK_MSG(recs[k].index == one.index && recs[k].offset == one.offset &&
                          recs[k].length == one.length &&
                          fc_crc32c(0, recs[k].data, recs[k].length) ==
                              fc_crc32c(0, one.data, one.length),
                      "%s, batches of %zu: record %zu (of gather %zu) differs: index %llu/%llu, "
                      "offset %llu/%llu, length %zu/%zu", c->what, bsize, total + k, k,
                      (unsigned long long)recs[k].index, (unsigned long long)one.index,
                      (unsigned long long)recs[k].offset, (unsigned long long)one.offset,
                      (size_t)recs[k].length, (size_t)one.length);
        }
        total += n;
    } while (s2 == FC_OK && s1 == FC_OK);
    if (s1 == FC_OK)
        s1 = fc_input_next(&seq, &one);
    CHECK_MSG(s1 == s2 && (s1 == FC_END || strcmp(seq.err.message, gat.err.message) == 0),
              "%s, batches of %zu: next ended %d \"%s\", gather %d \"%s\"", c->what, bsize,
              (int)s1, seq.err.message, (int)s2, gat.err.message);
    fc_input_close(&seq);
    fc_input_close(&gat);
    free(recs);
}

static void test_gather(void)
{
    static const size_t sizes[4] = {1, 7, 256, 4096};
    char plain[256], gz[256], cut[256];
    buf b = {NULL, 0, 0};
    size_t i, j, gz_len, nm, shorts = 0, whole_shorts = 0;
    fc_gzip_member *members;
    rec_list gl;
    unsigned char *g;
    gather_case cases[5];
    /* small records, with one of 300 KiB (past the 256 KiB buffer) every
     * 700 records */
    for (i = 0; i < 3000; i++)
        buf_random_record(&b, i % 700 == 350 ? (300u << 10) + (size_t)(h_rand() % 1000)
                                             : (size_t)(h_rand() % 400));
    snprintf(plain, sizeof plain, "/tmp/featc-gather-%d.tfrecord", (int)getpid());
    write_path(plain, b.p, b.n);
    snprintf(cut, sizeof cut, "/tmp/featc-gather-cut-%d.tfrecord", (int)getpid());
    b.p[b.n * 2 / 3] ^= 0x10;
    write_path(cut, b.p, b.n - 3);
    g = write_gzip(20000, 3000, 0, &gz_len, &members, &nm, &gl);
    snprintf(gz, sizeof gz, "/tmp/featc-gather-%d.tfrecord.gz", (int)getpid());
    write_path(gz, g, gz_len);
    cases[0] = (gather_case){"whole file", plain, FC_PART_ALL, 0, 0};
    cases[1] = (gather_case){"damaged copy", cut, FC_PART_ALL, 0, 0};
    cases[2] = (gather_case){"GZIP file", gz, FC_PART_ALL, 0, 0};
    cases[3] = (gather_case){"byte range (mapped)", plain, FC_PART_RANGE, 1000, b.n / 2};
    cases[4] = (gather_case){"split 1 of 3 (mapped)", plain, FC_PART_SPLIT, 1, 3};
    for (i = 0; i < 5; i++)
        for (j = 0; j < 4; j++) {
            size_t before = shorts;
            check_gather(&cases[i], sizes[j], &shorts);
            if (i == 0 && j == 3)
                whole_shorts = shorts - before;
        }
    /* the short path ran: the 300 KiB records do not fit beside a batch */
    CHECK_MSG(whole_shorts > 0, "no short gather over the whole file in batches of 4096");
    printf("test_split: gather = next over 5 inputs x 4 batch sizes (%zu short gathers)\n",
           shorts);
    remove(plain);
    remove(cut);
    remove(gz);
    free(b.p);
    free(g);
    free(members);
    rl_free(&gl);
}


/* inflate_ahead (a thread inflates, the reader frames) against the
 * one-thread read of the same file: the same records (index, offset,
 * length, bytes) and the same end, status, offset and words, by
 * fc_input_next and by fc_input_gather, over every GZIP file of the
 * corpus and GZIP files of several MiB (one member; many members), whole
 * and damaged late (cut, a byte of the deflate data or of the trailer
 * flipped, bytes after the last member, a second member's header broken):
 * the damage makes the thread stop after it has given records, and the
 * reader read the file again on one thread past them. */
static unsigned ahead_late; /* reads that fell back after the thread gave records */

static void same_ahead(const char *path, const char *what, size_t bsize, unsigned *fell_back)
{
    fc_input_options o;
    fc_input seq, ah;
    fc_record one, *recs = (fc_record *)malloc(bsize * sizeof *recs);
    fc_status s1 = FC_OK, s2 = FC_OK;
    size_t n = 0, k, total = 0;
    int had_thread;
    memset(&o, 0, sizeof o);
    o.compression = FC_COMPRESSION_AUTO;
    if (recs == NULL)
        abort();
    s1 = fc_input_open(&seq, path, &o);
    o.inflate_ahead = 1;
    s2 = fc_input_open(&ah, path, &o);
    had_thread = ah.ahead != NULL;
    CHECK_MSG(s1 == s2 && fc_input_compression(&seq) == fc_input_compression(&ah),
              "%s: open %d/%d, compression %d/%d", what, (int)s1, (int)s2,
              (int)fc_input_compression(&seq), (int)fc_input_compression(&ah));
    while (s1 == FC_OK && s2 == FC_OK) {
        if (bsize == 1) {
            s2 = fc_input_next(&ah, &recs[0]);
            n = s2 == FC_OK;
        } else {
            s2 = fc_input_gather(&ah, recs, bsize, &n);
        }
        for (k = 0; k < n; k++) {
            s1 = fc_input_next(&seq, &one);
            if (s1 != FC_OK) {
                CHECK_MSG(0, "%s, batches of %zu: inflated ahead gave record %zu, the "
                             "one-thread read ended (%s)", what, bsize, total + k,
                          seq.err.message);
                break;
            }
            CHECK_MSG(recs[k].index == one.index && recs[k].offset == one.offset &&
                          recs[k].length == one.length &&
                          fc_crc32c(0, recs[k].data, recs[k].length) ==
                              fc_crc32c(0, one.data, one.length),
                      "%s, batches of %zu: record %zu differs", what, bsize, total + k);
        }
        total += n;
    }
    if (s1 == FC_OK && s2 != FC_OK)
        s1 = fc_input_next(&seq, &one);
    CHECK_MSG(s1 == s2 && seq.err.offset == ah.err.offset &&
                  (s1 == FC_END || strcmp(seq.err.message, ah.err.message) == 0),
              "%s, batches of %zu, after %zu records: one thread ended %d at %llu \"%s\", "
              "ahead %d at %llu \"%s\"", what, bsize, total, (int)s1,
              (unsigned long long)seq.err.offset, seq.err.message, (int)s2,
              (unsigned long long)ah.err.offset, ah.err.message);
    if (had_thread && ah.ahead == NULL) {
        ++*fell_back;
        ahead_late += ah.ahead_records > 0;
    }
    fc_input_close(&seq);
    fc_input_close(&ah);
    free(recs);
}

/* ------------------------------------- parts of one file in one process */

/* Part i of k of data as a reader over memory reads it: the walk from the
 * start (no boundaries kept), into l. */
static void mem_part(const unsigned char *data, size_t len, size_t i, size_t k,
                     fc_crc_policy policy, rec_list *l)
{
    fc_reader r;
    fc_record rec;
    fc_status s;
    rl_init(l);
    init_mem(&r, data, len, policy);
    s = fc_reader_range(&r, fc_input_split_offset(len, i, k), fc_input_split_offset(len, i + 1, k),
                        FC_SYNC_WALK);
    while (s == FC_OK && (s = fc_reader_next(&r, &rec)) == FC_OK)
        rl_add(l, &rec);
    if (s != FC_END) {
        l->status = s;
        l->err = *fc_reader_error(&r);
    }
}

/* Part i of k of the file at path through fc_input_open, into l. */
static void file_part(const char *path, size_t i, size_t k, fc_crc_policy policy, rec_list *l)
{
    fc_input in;
    fc_input_options o;
    rl_init(l);
    memset(&o, 0, sizeof o);
    o.compression = FC_COMPRESSION_NONE;
    o.crc_policy = policy;
    o.part = FC_PART_SPLIT;
    o.part_a = i;
    o.part_b = k;
    (void)input_drain(&in, fc_input_open(&in, path, &o), l);
}

/* Every part of the file at path (its bytes data, len) read through
 * fc_input in the order given reads what the walk from the start reads. */
static void parts_in_order(const char *path, const unsigned char *data, size_t len, size_t k,
                           const size_t *order, fc_crc_policy policy, const char *what)
{
    size_t j;
    for (j = 0; j < k; j++) {
        rec_list want, got;
        char name[160];
        mem_part(data, len, order[j], k, policy, &want);
        file_part(path, order[j], k, policy, &got);
        snprintf(name, sizeof name, "%s: part %zu of %zu (%zu-th read)", what, order[j], k, j);
        rl_same(&got, &want, 1, name);
        rl_free(&want);
        rl_free(&got);
    }
}

/* Gives the file at path the time of change t. */
static void set_mtime(const char *path, const struct timespec *t)
{
    struct timespec ts[2];
    ts[0] = *t;
    ts[1] = *t;
    CHECK(utimensat(AT_FDCWD, path, ts, 0) == 0);
}

/* Parts of one file read in one process, in any order: each part's walk
 * starts from a record boundary an earlier part of the file reached
 * (runtime/hosted/walks.c), and reads what a walk from the file's start
 * reads (records, their numbers, errors and their messages); a file
 * rewritten since (another time of change) is walked from its start, and
 * so is one whose boundary is not a record's (the same time of change put
 * back over other bytes). */
static void test_walk_boundaries(void)
{
    static const size_t ks[3] = {2, 5, 11};
    char path[256];
    int round;
    unsigned parts = 0;
    snprintf(path, sizeof path, "/tmp/featc-walks-%d.tfrecord", (int)getpid());
    for (round = 0; round < 24; round++) {
        buf b = {NULL, 0, 0};
        size_t n = 20 + (size_t)(h_rand() % 200), i, kk, order[11];
        rec_list seq;
        char what[96];
        fc_crc_policy policy = round % 6 == 5 ? FC_CRC_SKIP_CORRUPT
                               : round % 6 == 4 ? FC_CRC_NONE : FC_CRC_VERIFY;
        size_t len;
        for (i = 0; i < n; i++)
            buf_random_record(&b, (size_t)(h_rand() % 400));
        seq_read(b.p, b.n, FC_CRC_VERIFY, &seq);
        len = b.n;
        if (round % 3 != 0) { /* damaged: a length, a length CRC or a data byte */
            size_t v = (size_t)(h_rand() % n);
            if (round % 3 == 1)
                b.p[seq.offset[v] + (size_t)(h_rand() % 12)] ^= 0x08;
            else
                b.p[seq.offset[v] + 12 + (size_t)(h_rand() % (seq.length[v] + 4))] ^= 0x40;
        }
        write_path(path, b.p, len);
        snprintf(what, sizeof what, "walks, round %d (%zu records, %s)", round, n,
                 round % 3 == 0 ? "intact" : round % 3 == 1 ? "a header damaged"
                                                            : "a record damaged");
        for (kk = 0; kk < 3; kk++) {
            size_t k = ks[kk];
            for (i = 0; i < k; i++)
                order[i] = i; /* forward */
            parts_in_order(path, b.p, len, k, order, policy, what);
            for (i = 0; i < k; i++)
                order[i] = k - 1 - i; /* backward, the boundaries known */
            parts_in_order(path, b.p, len, k, order, policy, what);
            for (i = k - 1; i > 0; i--) { /* shuffled */
                size_t j = (size_t)(h_rand() % (i + 1)), t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
            parts_in_order(path, b.p, len, k, order, policy, what);
            parts += 3 * (unsigned)k;
        }
        rl_free(&seq);
        free(b.p);
    }
    {
        /* 33 records of 100 bytes, then (as a rewrite) 58 of 50 bytes: the
         * same size, and no boundary of the first file inside the second
         * is one of its own (116 and 66 bytes framed; lcm 3828 = the size) */
        buf a = {NULL, 0, 0}, c = {NULL, 0, 0};
        size_t i, order[11];
        struct stat st;
        for (i = 0; i < 33; i++)
            buf_random_record(&a, 100);
        for (i = 0; i < 58; i++)
            buf_random_record(&c, 50);
        CHECK(a.n == c.n);
        for (i = 0; i < 11; i++)
            order[i] = i;
        write_path(path, a.p, a.n);
        parts_in_order(path, a.p, a.n, 11, order, FC_CRC_VERIFY, "walks, first file");
        CHECK(stat(path, &st) == 0);
        write_path(path, c.p, c.n);
        {
            struct timespec later = st.st_mtim;
            later.tv_sec += 1;
            set_mtime(path, &later);
        }
        parts_in_order(path, c.p, c.n, 11, order, FC_CRC_VERIFY, "walks, rewritten file");
        write_path(path, a.p, a.n);
        parts_in_order(path, a.p, a.n, 11, order, FC_CRC_VERIFY, "walks, first file again");
        CHECK(stat(path, &st) == 0);
        write_path(path, c.p, c.n);
        set_mtime(path, &st.st_mtim); /* its time put back: the same file, by fstat */
        parts_in_order(path, c.p, c.n, 11, order, FC_CRC_VERIFY,
                       "walks, rewritten with the time put back");
        parts += 44;
        free(a.p);
        free(c.p);
    }
    remove(path);
    printf("test_split: walks from known boundaries = walks from the start over %u parts "
           "(intact and damaged files, three orders, two rewrites)\n",
           parts);
}

static void test_inflate_ahead(void)
{
    static const size_t sizes[3] = {1, 256, 4096};
    const char *corpus = getenv("FEATC_CORPUS");
    char path[4096], tmp[256];
    unsigned files = 0, cases = 0, fell_back = 0;
    unsigned ahead0 = pool_ahead, back0 = pool_ahead_fell_back;
    size_t i, j, len, nm;
    fc_gzip_member *members;
    rec_list plain;
    DIR *d;
    struct dirent *de;
    if (!fc_input_can_inflate_ahead()) {
        printf("test_split: inflate ahead: no ISA-L in this program: not run\n");
        return;
    }
    if (corpus != NULL && (d = opendir(corpus)) != NULL) {
        while ((de = readdir(d)) != NULL) {
            size_t nl = strlen(de->d_name);
            if (nl < 3 || strcmp(de->d_name + nl - 3, ".gz") != 0)
                continue;
            snprintf(path, sizeof path, "%s/%s", corpus, de->d_name);
            for (j = 0; j < 3; j++)
                same_ahead(path, de->d_name, sizes[j], &fell_back);
            {
                const char *one[1];
                one[0] = path;
                check_pool(one, 1, FC_CRC_VERIFY, de->d_name);
            }
            files++;
        }
        closedir(d);
    }
    snprintf(tmp, sizeof tmp, "/tmp/featc-ahead-%d.tfrecord.gz", (int)getpid());
    for (i = 0; i < 2; i++) {
        /* one member, or a member every 1,000 records; several MiB inflated */
        unsigned char *g = write_gzip(60000, i == 0 ? 0 : 1000, 0, &len, &members, &nm, &plain);
        unsigned char *copy = (unsigned char *)malloc(len + 64);
        size_t k;
        const struct {
            const char *what;
            size_t at; /* (for cut: the length kept) */
            int how;   /* 0 whole, 1 cut, 2 flip a byte, 3 bytes after, 4 next header */
        } damage[] = {
            {"whole", 0, 0},
            {"cut at 97%", len * 97 / 100, 1},
            {"cut in the trailer", len - 3, 1},
            {"deflate byte flipped at 95%", len * 95 / 100, 2},
            {"trailer CRC flipped", len - 6, 2},
            {"trailer length flipped", len - 2, 2},
            {"bytes after the last member", 0, 3},
            {"a member's header broken at 90%", 0, 4},
        };
        if (copy == NULL)
            abort();
        for (k = 0; k < sizeof damage / sizeof damage[0]; k++) {
            size_t n = len;
            char what[160];
            memcpy(copy, g, len);
            if (damage[k].how == 1)
                n = damage[k].at;
            else if (damage[k].how == 2)
                copy[damage[k].at] ^= 0x21;
            else if (damage[k].how == 3) {
                memcpy(copy + len, "not a member", 12);
                n = len + 12;
            } else if (damage[k].how == 4) {
                size_t m = nm * 9 / 10;
                if (nm < 2)
                    continue; /* (one member: no second header) */
                copy[members[m].offset + 3] |= 0xe0; /* reserved flags */
            }
            write_path(tmp, copy, n);
            snprintf(what, sizeof what, "GZIP %s: %s", i == 0 ? "one member" : "members",
                     damage[k].what);
            for (j = 0; j < 3; j++)
                same_ahead(tmp, what, sizes[j], &fell_back);
            {
                const char *one[1];
                one[0] = tmp;
                check_pool(one, 1, FC_CRC_VERIFY, what);
            }
            cases++;
        }
        free(copy);
        free(g);
        free(members);
        rl_free(&plain);
    }
    remove(tmp);
    CHECK_MSG(fell_back >= 3 * (cases - 2), "only %u reads read again on one thread", fell_back);
    CHECK_MSG(ahead_late >= 3 * (cases - 4), "only %u reads fell back after records were given",
              ahead_late);
    /* the pools of 2 and 3 threads (4 split sizes each) over one file */
    pool_ahead -= ahead0;
    pool_ahead_fell_back -= back0;
    CHECK_MSG(pool_ahead == 8 * (files + cases), "pools inflated ahead %u times, not %u",
              pool_ahead, 8 * (files + cases));
    CHECK_MSG(pool_ahead_fell_back >= 8 * (cases - 2), "only %u pool reads fell back",
              pool_ahead_fell_back);
    printf("test_split: inflate ahead = one thread over %u corpus GZIP files and %u synthetic "
           "(whole and damaged), next and gathers of 256 and 4096 (%u reads fell back, %u "
           "after giving records); pools of 1-3 threads the same (%u splits inflated ahead, "
           "%u read again)\n",
           files, cases, fell_back, ahead_late, pool_ahead, pool_ahead_fell_back);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--bench-corpora") == 0) {
        RUN(test_splits_bench);
        return harness_report("split-bench");
    }
    RUN(test_index_dali_format);
    RUN(test_index_errors);
    RUN(test_seek_and_sync_basics);
    RUN(test_seek_fd);
    RUN(test_splits_synthetic);
    RUN(test_splits_embedded_streams);
    RUN(test_splits_damaged);
    RUN(test_splits_corpus);
    RUN(test_seekable_gzip);
    RUN(test_pull_seekable);
    RUN(test_gather);
    RUN(test_inflate_ahead);
    RUN(test_walk_boundaries);
    RUN(test_pool);
    return harness_report("split");
}
