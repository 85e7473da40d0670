/* libFuzzer harness for the claims of index files and GZIP member lists
 * (issue 43): what a list says is checked against the file as a read goes.
 *
 * The harness builds one TFRecord file (48 records of 0..199 bytes) and
 * the same records as a seekable GZIP file (a member every 6 records), and
 * their true index and member list.  The input edits a list: byte 0 picks
 * the list (bit 0: member list), the number of splits (bits 1-4, 1..16) and
 * for an index whether records [a, b) are read instead (bit 5; a and b from
 * byte 1); then 4-byte edits (op, line, field, delta): add delta to a
 * field, drop a line, repeat a line, or copy a field from another line.
 * The edited list is written as text and parsed; an accepted one places
 * every split (fc_reader_range_index, fc_reader_records,
 * fc_reader_range_members), and the property is the one issue 43 asks
 * for: when every split reads to its end, they hand out exactly the
 * records of the sequential read, each once, in order, with its index.
 * Otherwise some split fails with a message. */
#include <featc/fc.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { NREC = 48, PER_MEMBER = 6, CAP = 128, FILE_CAP = NREC * (200 + 16) };

static unsigned char plain[FILE_CAP], packed[FILE_CAP + 4096];
static size_t plain_len, packed_len;
static uint64_t seq_off[NREC];
static fc_index_entry true_index[NREC], index_[CAP];
static fc_gzip_member true_members[NREC], members[CAP];
static size_t true_members_n;
static char text[CAP * FC_MEMBERS_LINE_MAX];
static unsigned char rbuf[64 * 1024], work[FC_READER_WORK_SIZE], wwork[FC_DEFLATE_ARENA_SIZE];

static void build(void)
{
    uint32_t x = 12345;
    unsigned char payload[200];
    fc_writer w;
    fc_writer_options wo;
    fc_reader r;
    fc_reader_options ro;
    fc_record rec;
    size_t i, j;
    memset(&wo, 0, sizeof wo);
    wo.compression = FC_COMPRESSION_GZIP;
    wo.member_records = PER_MEMBER;
    wo.work = wwork;
    wo.work_size = sizeof wwork;
    if (fc_writer_init_mem(&w, packed, sizeof packed, &wo, NULL) != FC_OK)
        abort();
    for (i = 0; i < NREC; i++) {
        size_t n;
        x = x * 1103515245u + 12345u;
        n = (x >> 16) % 200u;
        for (j = 0; j < n; j++)
            payload[j] = (unsigned char)(i + j);
        seq_off[i] = plain_len;
        true_index[i].offset = plain_len;
        true_index[i].size = n + 16;
        plain_len += fc_record_frame(plain + plain_len, sizeof plain - plain_len, payload, n);
        if (fc_writer_write(&w, payload, n) != FC_OK)
            abort();
    }
    if (fc_writer_close(&w) != FC_OK)
        abort();
    packed_len = fc_writer_size(&w);
    /* the member list, as featc index finds it */
    memset(&ro, 0, sizeof ro);
    ro.compression = FC_COMPRESSION_GZIP;
    ro.buffer = rbuf;
    ro.buffer_size = sizeof rbuf;
    ro.work = work;
    ro.work_size = sizeof work;
    if (fc_reader_init_mem(&r, packed, packed_len, &ro, NULL) != FC_OK)
        abort();
    fc_reader_log_members(&r, true_members, NREC);
    j = 0;
    while (fc_reader_next(&r, &rec) == FC_OK) {
        size_t seen = (size_t)fc_reader_members(&r);
        for (; j < seen && true_members[j].stream_offset <= rec.offset; j++)
            if (true_members[j].stream_offset == rec.offset) {
                true_members[j].first_record = rec.index;
                true_members[true_members_n++] = true_members[j];
            }
    }
}

/* Reads split i of k (or records [a, b)); appends what it hands out to
 * got[*n]; 1 when it read to its end, 0 when it failed with a message. */
static int read_part(int gz, size_t nl, int by_records, uint64_t a, uint64_t b, size_t i,
                     size_t k, uint64_t *got_off, uint64_t *got_idx, size_t *n)
{
    fc_reader r;
    fc_reader_options ro;
    fc_record rec;
    fc_status s;
    size_t len = gz ? packed_len : plain_len;
    uint64_t begin = (uint64_t)len * i / k, end = (uint64_t)len * (i + 1) / k;
    memset(&ro, 0, sizeof ro);
    ro.compression = gz ? FC_COMPRESSION_GZIP : FC_COMPRESSION_NONE;
    ro.buffer = rbuf;
    ro.buffer_size = sizeof rbuf;
    ro.work = work;
    ro.work_size = sizeof work;
    if (fc_reader_init_mem(&r, gz ? packed : plain, len, &ro, NULL) != FC_OK)
        abort();
    if (gz)
        s = fc_reader_range_members(&r, members, nl, begin, end);
    else if (by_records)
        s = fc_reader_records(&r, index_, nl, a, b);
    else
        s = fc_reader_range_index(&r, index_, nl, begin, end);
    while (s == FC_OK && (s = fc_reader_next(&r, &rec)) == FC_OK) {
        if (*n >= 4 * NREC)
            return 0; /* more records than the file holds: the comparison fails */
        got_off[*n] = rec.offset;
        got_idx[*n] = rec.index;
        (*n)++;
    }
    if (s == FC_END)
        return 1;
    if (fc_reader_error(&r)->message[0] == '\0')
        abort(); /* every failure says why */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int built;
    uint64_t got_off[4 * NREC], got_idx[4 * NREC], a = 0, b = 0;
    size_t nl, n = 0, i, k, tlen = 0, want_from = 0, want_to = NREC, parsed;
    int gz, by_records, all = 1;
    fc_error err;
    if (!built) {
        build();
        built = 1;
    }
    if (size < 1)
        return 0;
    gz = data[0] & 1;
    k = (size_t)((data[0] >> 1) & 15u) + 1u;
    by_records = !gz && (data[0] & 32u) != 0;
    if (by_records && size >= 2) {
        a = data[1] % (NREC + 2u);
        b = a + (data[1] >> 4) * 4u;
        k = 1;
    }
    /* the true list, edited */
    nl = gz ? true_members_n : NREC;
    if (gz)
        memcpy(members, true_members, nl * sizeof *members);
    else
        memcpy(index_, true_index, nl * sizeof *index_);
    for (i = 2; i + 4 <= size; i += 4) {
        size_t line = nl == 0 ? 0 : data[i + 1] % nl, f = data[i + 2] % 3u;
        int delta = (int)(signed char)data[i + 3];
        uint64_t *field;
        if (nl == 0)
            break;
        field = gz ? (f == 0   ? &members[line].offset
                      : f == 1 ? &members[line].stream_offset
                               : &members[line].first_record)
                   : (f == 0 ? &index_[line].offset : &index_[line].size);
        switch (data[i] % 4u) {
        case 0:
            *field += (uint64_t)(int64_t)delta;
            break;
        case 1: /* drop the line */
            if (gz)
                memmove(&members[line], &members[line + 1], (nl - line - 1) * sizeof *members);
            else
                memmove(&index_[line], &index_[line + 1], (nl - line - 1) * sizeof *index_);
            nl--;
            break;
        case 2: /* the line twice */
            if (nl < CAP) {
                if (gz)
                    memmove(&members[line + 1], &members[line], (nl - line) * sizeof *members);
                else
                    memmove(&index_[line + 1], &index_[line], (nl - line) * sizeof *index_);
                nl++;
            }
            break;
        default: { /* a field from another line */
            size_t other = (size_t)(unsigned char)delta % nl;
            *field = gz ? (f == 0   ? members[other].offset
                           : f == 1 ? members[other].stream_offset
                                    : members[other].first_record)
                        : (f == 0 ? index_[other].offset : index_[other].size);
            break;
        }
        }
    }
    /* written as text and parsed: what a reader of the list would take */
    for (i = 0; i < nl; i++)
        tlen += gz ? fc_members_line(text + tlen, sizeof text - tlen, &members[i])
                   : fc_index_line(text + tlen, sizeof text - tlen, &index_[i]);
    if (gz ? fc_members_parse(text, tlen, members, CAP, &parsed, &err) != FC_OK
           : fc_index_parse(text, tlen, index_, CAP, &parsed, &err) != FC_OK)
        return 0;
    nl = parsed;
    if (by_records) {
        if (a > nl || b < a)
            return 0;
        want_from = (size_t)a;
        want_to = b > NREC ? NREC : (size_t)b;
        if (b > nl)
            want_to = NREC + 1; /* an error is the only right answer */
    }
    for (i = 0; i < k; i++)
        if (!read_part(gz, nl, by_records, a, b, i, k, got_off, got_idx, &n))
            all = 0;
    if (!all)
        return 0;
    /* every part read to its end: exactly the sequential records */
    if (want_to > NREC || n != want_to - want_from)
        abort();
    for (i = 0; i < n; i++)
        if (got_idx[i] != want_from + i ||
            got_off[i] != seq_off[want_from + i]) /* GZIP: stream offsets, the same */
            abort();
    return 0;
}
