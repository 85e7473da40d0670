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
 *     GZIP) do the same. */
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
    }
    return 0;
}
