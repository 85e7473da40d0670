/* libFuzzer harness for index files (fc_index_parse, fc_members_parse) and
 * the reads they place.
 *
 * The input is "TEXT\0DATA": TEXT parsed as a record index and as a member
 * index, DATA a TFRecord file.  Properties:
 *   - parsing never crashes; an accepted index is in file order with sizes
 *     of at least 16, counting first gives the same count, and its lines
 *     written back parse to the same entries;
 *   - splits and record ranges placed by an accepted index over DATA hand
 *     out only records inside DATA, or fail with a message;
 *   - member splits placed by an accepted member index over DATA (read as
 *     GZIP) do the same;
 *   - each of those reads through a seekable pull source over DATA
 *     (fc_reader_init_pull_seekable: what a URL's range requests are) hands
 *     out the memory read's records, offsets, numbers and bytes, as far as
 *     both go, ends where it ends when both end cleanly, and fails only
 *     where it fails (or for its smaller buffer). */
#include <featc/fc.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { CAP = 512 };

static fc_index_entry entries[CAP], again[CAP];
static fc_gzip_member members[CAP], members_again[CAP];
static char lines[CAP * FC_MEMBERS_LINE_MAX];
static unsigned char rbuf[4096], work[FC_READER_WORK_SIZE];

static void drain(fc_reader *r, const uint8_t *d, size_t n)
{
    fc_record rec;
    fc_status s;
    int k = 0;
    while ((s = fc_reader_next(r, &rec)) == FC_OK && k++ < 10000) {
        if (fc_reader_compression(r) == FC_COMPRESSION_NONE &&
            (rec.data < d || rec.length > n || rec.data + rec.length > d + n))
            abort();
    }
    if (s != FC_OK && s != FC_END && s != FC_ERR_BUFFER && fc_reader_error(r)->message[0] == '\0')
        abort();
}

/* ---- the same reads through a seekable pull source */

typedef struct stream {
    const uint8_t *d;
    size_t n, pos;
} stream;

static fc_status s_pull(void *ctx, void *dst, size_t n, size_t *got, fc_error *err)
{
    stream *s = (stream *)ctx;
    size_t k = s->n - s->pos < n ? s->n - s->pos : n;
    (void)err;
    if (k > 0)
        memcpy(dst, s->d + s->pos, k);
    s->pos += k;
    *got = k;
    return FC_OK;
}

static fc_status s_seek(void *ctx, uint64_t offset, fc_error *err)
{
    stream *s = (stream *)ctx;
    (void)err;
    s->pos = offset < s->n ? (size_t)offset : s->n;
    return FC_OK;
}

enum { KEEP = 64 };
typedef struct seen {
    fc_record rec[KEEP];
    uint32_t sum[KEEP];
    size_t n;
    fc_status end;
} seen;

static uint32_t sum_of(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

static void collect(fc_reader *r, seen *out)
{
    fc_record rec;
    out->n = 0;
    while ((out->end = fc_reader_next(r, &rec)) == FC_OK && out->n < KEEP) {
        out->sum[out->n] = sum_of(rec.data, rec.length);
        out->rec[out->n++] = rec;
    }
}

/* The pull read (placed by place, as the memory read was) against it. */
static unsigned char pbuf[4096], pwork[FC_READER_WORK_SIZE];
static void compare_pull(const seen *mem, const uint8_t *file, size_t flen, fc_compression c,
                         int how, size_t n, uint64_t a, uint64_t b)
{
    fc_reader r;
    fc_reader_options o;
    stream st;
    seen got;
    fc_status s;
    size_t i, both;
    memset(&o, 0, sizeof o);
    o.compression = c;
    o.buffer = pbuf;
    o.buffer_size = sizeof pbuf;
    o.work = pwork;
    o.work_size = sizeof pwork;
    st.d = file;
    st.n = flen;
    st.pos = 0;
    if (fc_reader_init_pull_seekable(&r, s_pull, s_seek, &st, &o, NULL) != FC_OK)
        abort();
    s = how == 0   ? fc_reader_range_index(&r, entries, n, a, b)
        : how == 1 ? fc_reader_records(&r, entries, n, a, b)
                   : fc_reader_range_members(&r, members, n, a, b);
    if (s != FC_OK)
        return; /* (placing may fail where memory's could not: past the end, say) */
    collect(&r, &got);
    both = got.n < mem->n ? got.n : mem->n;
    for (i = 0; i < both; i++)
        if (got.rec[i].offset != mem->rec[i].offset || got.rec[i].index != mem->rec[i].index ||
            got.rec[i].length != mem->rec[i].length || got.sum[i] != mem->sum[i])
            abort();
    if (got.end == FC_END && mem->end == FC_END && got.n != mem->n)
        abort();
    /* an error of the pull read (but its smaller buffer's) is one where
     * the memory read fails too, at the same record (the words may differ:
     * zlib reports damage met across the end of its input by what it has
     * read so far) */
    if (got.end != FC_OK && got.end != FC_END && got.end != FC_ERR_BUFFER &&
        (mem->end == FC_OK || mem->end == FC_END || got.n != mem->n))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nul = (const uint8_t *)memchr(data, 0, size);
    const char *text = (const char *)data;
    size_t tlen = nul != NULL ? (size_t)(nul - data) : size, n = 0, n2 = 0, i, at = 0;
    const uint8_t *file = nul != NULL ? nul + 1 : data + size;
    size_t flen = nul != NULL ? size - tlen - 1 : 0;
    fc_error err;
    fc_reader r;
    fc_reader_options o;

    /* a record index */
    if (fc_index_parse(text, tlen, NULL, 0, &n, &err) == FC_OK) {
        fc_status s = fc_index_parse(text, tlen, entries, CAP, &n2, &err);
        if (n2 != n || (s != FC_OK && !(s == FC_ERR_BUFFER && n > CAP)))
            abort();
        if (s == FC_OK) {
            for (i = 0; i < n; i++) {
                if (entries[i].size < 16 || (i > 0 && entries[i].offset <
                                                          entries[i - 1].offset + entries[i - 1].size))
                    abort();
                at += fc_index_line(lines + at, sizeof lines - at, &entries[i]);
            }
            if (fc_index_parse(lines, at, again, CAP, &n2, &err) != FC_OK || n2 != n ||
                memcmp(again, entries, n * sizeof *entries) != 0)
                abort();
            memset(&o, 0, sizeof o);
            if (fc_reader_init_mem(&r, file, flen, &o, NULL) == FC_OK &&
                fc_reader_range_index(&r, entries, n, flen / 3, flen) == FC_OK)
                drain(&r, file, flen);
            if (fc_reader_init_mem(&r, file, flen, &o, NULL) == FC_OK &&
                fc_reader_records(&r, entries, n, n / 2, n) == FC_OK)
                drain(&r, file, flen);
            if (fc_reader_init_mem(&r, file, flen, &o, NULL) == FC_OK &&
                fc_reader_range_index(&r, entries, n, flen / 3, flen) == FC_OK) {
                seen mem;
                collect(&r, &mem);
                compare_pull(&mem, file, flen, FC_COMPRESSION_NONE, 0, n, flen / 3, flen);
            }
            if (fc_reader_init_mem(&r, file, flen, &o, NULL) == FC_OK &&
                fc_reader_records(&r, entries, n, n / 2, n) == FC_OK) {
                seen mem;
                collect(&r, &mem);
                compare_pull(&mem, file, flen, FC_COMPRESSION_NONE, 1, n, n / 2, n);
            }
            if (fc_reader_init_mem(&r, file, flen, &o, NULL) == FC_OK)
                (void)fc_index_verify(&r, entries, n, &err);
        }
    } else if (err.message[0] == '\0') {
        abort();
    }

    /* a member index */
    at = 0;
    if (fc_members_parse(text, tlen, members, CAP, &n, &err) == FC_OK) {
        for (i = 0; i < n; i++) {
            if (i > 0 && members[i].offset <= members[i - 1].offset)
                abort();
            at += fc_members_line(lines + at, sizeof lines - at, &members[i]);
        }
        if (fc_members_parse(lines, at, members_again, CAP, &n2, &err) != FC_OK || n2 != n ||
            memcmp(members_again, members, n * sizeof *members) != 0)
            abort();
        memset(&o, 0, sizeof o);
        o.compression = FC_COMPRESSION_GZIP;
        o.buffer = rbuf;
        o.buffer_size = sizeof rbuf;
        o.work = work;
        o.work_size = sizeof work;
        if (fc_reader_init_mem(&r, file, flen, &o, NULL) == FC_OK &&
            fc_reader_range_members(&r, members, n, flen / 2, flen) == FC_OK)
            drain(&r, file, flen);
        if (fc_reader_init_mem(&r, file, flen, &o, NULL) == FC_OK &&
            fc_reader_range_members(&r, members, n, flen / 2, flen) == FC_OK) {
            seen mem;
            collect(&r, &mem);
            compare_pull(&mem, file, flen, FC_COMPRESSION_GZIP, 2, n, flen / 2, flen);
        }
    }
    return 0;
}
