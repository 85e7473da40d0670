/* Index files and exact splits by index.  See featc/fc_index.h. */
#include "featc/fc_index.h"

#include "featc/fc_crc32c.h"
#include "frame.h"

#include <string.h>

static fc_status index_error(fc_error *err, const char *text, size_t len, size_t at,
                             size_t line, size_t line_start, const char *what)
{
    fc_msg m = fc_error_begin(err, FC_ERR_INDEX, FC_NO_INDEX, (uint64_t)at);
    fc_msg_str(&m, "index line ");
    fc_msg_u64(&m, (uint64_t)line);
    fc_msg_str(&m, ", column ");
    fc_msg_u64(&m, (uint64_t)(at - line_start + 1));
    fc_msg_str(&m, ": ");
    fc_msg_str(&m, what);
    if (at < line_start + 80u) {
        /* what stands there, escaped: an index file is untrusted */
        size_t end = at;
        while (end < len && end < at + 16u && text[end] != '\n')
            end++;
        fc_msg_str(&m, at < end ? " (found '" : " (found the end of the line)");
        if (at < end) {
            fc_msg_cescape(&m, text + at, end - at);
            fc_msg_str(&m, "')");
        }
    }
    return FC_ERR_INDEX;
}

/* A decimal number at text[*at] (no sign, at most 20 digits, no overflow). */
static int parse_u64(const char *text, size_t len, size_t *at, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = *at;
    if (i >= len || text[i] < '0' || text[i] > '9')
        return 0;
    for (; i < len && text[i] >= '0' && text[i] <= '9'; i++) {
        unsigned d = (unsigned)(text[i] - '0');
        if (v > (UINT64_MAX - d) / 10u)
            return 0;
        v = v * 10u + d;
    }
    *at = i;
    *out = v;
    return 1;
}

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

fc_status fc_index_parse(const char *text, size_t len, fc_index_entry *entries, size_t cap,
                         size_t *count, fc_error *err)
{
    size_t at = 0, line = 0, n = 0;
    uint64_t next_free = 0; /* where the previous record ended */
    if (count == NULL || (text == NULL && len > 0) || (entries == NULL && cap > 0))
        return FC_ERR_ARG;
    *count = 0;
    while (at < len) {
        size_t line_start = at;
        uint64_t offset, size;
        line++;
        if (text[at] == '\n' || (text[at] == '\r' && at + 1 < len && text[at + 1] == '\n')) {
            at += text[at] == '\r' ? 2u : 1u; /* an empty line */
            continue;
        }
        while (at < len && blank(text[at]))
            at++;
        if (!parse_u64(text, len, &at, &offset))
            return index_error(err, text, len, at, line, line_start,
                               "expected a record offset (a decimal number below 2^64)");
        if (at >= len || !blank(text[at]))
            return index_error(err, text, len, at, line, line_start,
                               "expected a space and the record size after the offset");
        while (at < len && blank(text[at]))
            at++;
        if (!parse_u64(text, len, &at, &size))
            return index_error(err, text, len, at, line, line_start,
                               "expected a record size (a decimal number below 2^64)");
        while (at < len && blank(text[at]))
            at++;
        if (at < len && text[at] == '\r' && at + 1 < len && text[at + 1] == '\n')
            at++;
        if (at < len && text[at] != '\n')
            return index_error(err, text, len, at, line, line_start,
                               "expected the end of the line after the two numbers");
        if (at < len)
            at++;
        if (size < FC_RECORD_OVERHEAD)
            return index_error(err, text, len, line_start, line, line_start,
                               "a record size is at least 16 (12 bytes of header and 4 of "
                               "footer)");
        if (offset > UINT64_MAX - size)
            return index_error(err, text, len, line_start, line, line_start,
                               "the record would end past 2^64");
        if (offset != next_free) {
            /* a TFRecord file is records back to back from offset 0, and
             * its index lists every one: a gap would hide a record from
             * every split that trusted it */
            fc_msg m = fc_error_begin(err, FC_ERR_INDEX, FC_NO_INDEX, (uint64_t)line_start);
            fc_msg_str(&m, "index line ");
            fc_msg_u64(&m, (uint64_t)line);
            fc_msg_str(&m, ", column 1: the record at offset ");
            fc_msg_u64(&m, offset);
            if (n == 0)
                fc_msg_str(&m, " is the first, but a file's first record is at offset 0");
            else if (offset < next_free)
                fc_msg_str(&m, " starts before the previous one ends (at ");
            else
                fc_msg_str(&m, " does not start where the previous one ends (at ");
            if (n > 0) {
                fc_msg_u64(&m, next_free);
                fc_msg_str(&m, offset < next_free ? "); entries must be in file order"
                                                  : "); an index lists every record of its "
                                                    "file, back to back");
            }
            return FC_ERR_INDEX;
        }
        next_free = offset + size;
        if (n < cap) {
            entries[n].offset = offset;
            entries[n].size = size;
        }
        n++;
    }
    *count = n;
    if (n > cap && entries != NULL) {
        fc_msg m = fc_error_begin(err, FC_ERR_BUFFER, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "the index has ");
        fc_msg_u64(&m, (uint64_t)n);
        fc_msg_str(&m, " entries, room was given for ");
        fc_msg_u64(&m, (uint64_t)cap);
        return FC_ERR_BUFFER;
    }
    return FC_OK;
}

fc_status fc_members_parse(const char *text, size_t len, fc_gzip_member *members, size_t cap,
                           size_t *count, fc_error *err)
{
    size_t at = 0, line = 0, n = 0;
    fc_gzip_member prev = {0, 0, 0};
    if (count == NULL || (text == NULL && len > 0) || (members == NULL && cap > 0))
        return FC_ERR_ARG;
    *count = 0;
    while (at < len) {
        size_t line_start = at, k;
        uint64_t v[3];
        line++;
        if (text[at] == '\n' || (text[at] == '\r' && at + 1 < len && text[at + 1] == '\n')) {
            at += text[at] == '\r' ? 2u : 1u;
            continue;
        }
        for (k = 0; k < 3; k++) {
            while (at < len && blank(text[at]))
                at++;
            if (!parse_u64(text, len, &at, &v[k]))
                return index_error(err, text, len, at, line, line_start,
                                   k == 0   ? "expected a compressed offset (a decimal number)"
                                   : k == 1 ? "expected a decompressed offset (a decimal number)"
                                            : "expected a record number (a decimal number)");
            if (k < 2 && (at >= len || !blank(text[at])))
                return index_error(err, text, len, at, line, line_start,
                                   "expected a space and the next number");
        }
        while (at < len && blank(text[at]))
            at++;
        if (at < len && text[at] == '\r' && at + 1 < len && text[at + 1] == '\n')
            at++;
        if (at < len && text[at] != '\n')
            return index_error(err, text, len, at, line, line_start,
                               "expected the end of the line after the three numbers");
        if (at < len)
            at++;
        if (n > 0 && (v[0] <= prev.offset || v[1] < prev.stream_offset ||
                      v[2] < prev.first_record))
            return index_error(err, text, len, line_start, line, line_start,
                               "members must be in file order (every number above the "
                               "line before's)");
        if (n == 0 && (v[0] != 0 || v[1] != 0 || v[2] != 0))
            return index_error(err, text, len, line_start, line, line_start,
                               "the first member starts the file: 0 0 0");
        prev.offset = v[0];
        prev.stream_offset = v[1];
        prev.first_record = v[2];
        if (n < cap)
            members[n] = prev;
        n++;
    }
    *count = n;
    if (n > cap && members != NULL) {
        fc_msg m = fc_error_begin(err, FC_ERR_BUFFER, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "the member index has ");
        fc_msg_u64(&m, (uint64_t)n);
        fc_msg_str(&m, " members, room was given for ");
        fc_msg_u64(&m, (uint64_t)cap);
        return FC_ERR_BUFFER;
    }
    return FC_OK;
}

/* Writes v in decimal at p; returns the digits written. */
static size_t put_u64(char *p, uint64_t v)
{
    char tmp[20];
    size_t n = 0, i;
    do {
        tmp[n++] = (char)('0' + (int)(v % 10u));
        v /= 10u;
    } while (v != 0);
    for (i = 0; i < n; i++)
        p[i] = tmp[n - 1 - i];
    return n;
}

size_t fc_index_line(char *buf, size_t cap, const fc_index_entry *e)
{
    char line[FC_INDEX_LINE_MAX];
    size_t n = put_u64(line, e->offset);
    line[n++] = ' ';
    n += put_u64(line + n, e->size);
    line[n++] = '\n';
    if (buf == NULL || cap < n)
        return 0;
    memcpy(buf, line, n);
    return n;
}

size_t fc_members_line(char *buf, size_t cap, const fc_gzip_member *m)
{
    char line[FC_MEMBERS_LINE_MAX];
    size_t n = put_u64(line, m->offset);
    line[n++] = ' ';
    n += put_u64(line + n, m->stream_offset);
    line[n++] = ' ';
    n += put_u64(line + n, m->first_record);
    line[n++] = '\n';
    if (buf == NULL || cap < n)
        return 0;
    memcpy(buf, line, n);
    return n;
}

size_t fc_index_lower_bound(const fc_index_entry *entries, size_t n, uint64_t offset)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2u;
        if (entries[mid].offset < offset)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return lo;
}

/* "index entry I says offset O size S; record I of the file is at offset P
 * with size Q": what `featc index --check` and a read placed by the index say. */
static fc_status entry_differs(fc_error *err, uint64_t i, const fc_index_entry *e,
                               uint64_t offset, uint64_t size)
{
    fc_msg m = fc_error_begin(err, FC_ERR_INDEX, i, offset);
    fc_msg_str(&m, "index entry ");
    fc_msg_u64(&m, i);
    fc_msg_str(&m, " says offset ");
    fc_msg_u64(&m, e->offset);
    fc_msg_str(&m, " size ");
    fc_msg_u64(&m, e->size);
    fc_msg_str(&m, "; record ");
    fc_msg_u64(&m, i);
    fc_msg_str(&m, " of the file is at offset ");
    fc_msg_u64(&m, offset);
    fc_msg_str(&m, " with size ");
    fc_msg_u64(&m, size);
    return FC_ERR_INDEX;
}

/* "the file ends after I records, but the index has N entries (entry I
 * says offset O)". */
static fc_status file_ends_early(fc_error *err, uint64_t i, const fc_index_entry *entries,
                                 size_t n)
{
    fc_msg m = fc_error_begin(err, FC_ERR_INDEX, i, entries[i].offset);
    fc_msg_str(&m, "the file ends after ");
    fc_msg_u64(&m, i);
    fc_msg_str(&m, i == 1 ? " record" : " records");
    fc_msg_str(&m, ", but the index has ");
    fc_msg_u64(&m, (uint64_t)n);
    fc_msg_str(&m, " entries (entry ");
    fc_msg_u64(&m, i);
    fc_msg_str(&m, " says offset ");
    fc_msg_u64(&m, entries[i].offset);
    fc_msg_str(&m, ")");
    return FC_ERR_INDEX;
}

/* ------------------------------------------------------------- claims
 *
 * A read placed by an index or a member list checks what the list says of
 * every place it reaches (the reader calls claim_fn at claim_at, and at each
 * GZIP member start), so that a stale, foreign or forged list fails the
 * read instead of losing or repeating records. */

/* Index claims: record i is where entry i says, with the size it says.  At
 * claim_at, the records whose headers are in the buffer are compared with
 * their entries, up to CLAIM_RUN of them; claim_at moves to the first one
 * not compared.  The first one differing fails the read when it is reached. */
enum { CLAIM_RUN = 256 };

/* The size a header's length gives its record, framing included
 * (UINT64_MAX past what 64 bits hold). */
static uint64_t framed_size(uint64_t length)
{
    return length > UINT64_MAX - FC_RECORD_OVERHEAD ? UINT64_MAX : length + FC_RECORD_OVERHEAD;
}

static int index_claims(fc_reader *r, int event, uint64_t x, uint64_t t)
{
    const fc_index_entry *e = (const fc_index_entry *)r->claim_list;
    size_t at = r->start, k;
    uint64_t pos = r->pos, i = r->next_index;
    (void)x;
    (void)t;
    if (event != FC_CLAIM_RECORD || r->pos >= r->limit)
        return 0;
    for (k = 0; k < CLAIM_RUN; k++) {
        size_t avail = r->end - at;
        uint64_t length;
        if (i >= (uint64_t)r->claim_n) {
            /* past the index: the records there are read as the file has them */
            r->claim_at = UINT64_MAX;
            return 0;
        }
        if (avail < FC_RECORD_HEADER_SIZE) {
            if (k == 0 && avail == 0)
                return (int)file_ends_early(&r->err, i, e, r->claim_n);
            break; /* a header cut short is the read's to report */
        }
        if (r->crc_policy != FC_CRC_NONE && !length_crc_ok(r->buf + at))
            break; /* a damaged header is the read's to report, in TensorFlow's words */
        length = le64(r->buf + at);
        if (e[i].offset != pos || e[i].size - FC_RECORD_OVERHEAD != length) {
            if (k == 0)
                return (int)entry_differs(&r->err, i, &e[i], pos, framed_size(length));
            break;
        }
        pos += e[i].size;
        i++;
        if (avail < FC_RECORD_OVERHEAD || length > (uint64_t)(avail - FC_RECORD_OVERHEAD))
            break; /* the next header is not in the buffer yet */
        at += (size_t)length + FC_RECORD_OVERHEAD;
    }
    r->claim_at = pos;
    return 0;
}

/* Sets the index's claims on a reader just placed at entry `from`. */
static void claim_index(fc_reader *r, const fc_index_entry *entries, size_t n)
{
    r->claim_fn = index_claims;
    r->claim_list = entries;
    r->claim_n = n;
    r->claim_at = r->pos;
}

/* Where the index's records end: the first offset after its last record. */
static uint64_t index_end(const fc_index_entry *entries, size_t n)
{
    return n == 0 ? 0 : entries[n - 1].offset + entries[n - 1].size;
}

/* Entry k frames the record at its offset: an intact header whose record
 * is the size it says. */
static fc_status check_entry(fc_reader *r, const fc_index_entry *e, size_t n, size_t k)
{
    const unsigned char *hdr;
    uint64_t length;
    fc_status s = fc_reader_seek(r, e[k].offset, (uint64_t)k);
    if (s != FC_OK)
        return s;
    s = fc_reader_fill_to(r, FC_RECORD_HEADER_SIZE);
    if (s != FC_OK)
        return s;
    if (r->end - r->start < FC_RECORD_HEADER_SIZE) {
        r->failed = 1;
        return file_ends_early(&r->err, (uint64_t)k, e, n);
    }
    hdr = r->buf + r->start;
    length = le64(hdr);
    if ((r->crc_policy != FC_CRC_NONE && !length_crc_ok(hdr)) ||
        length > UINT64_MAX - FC_RECORD_OVERHEAD || framed_size(length) != e[k].size) {
        r->failed = 1;
        return entry_differs(&r->err, (uint64_t)k, &e[k], e[k].offset, framed_size(length));
    }
    return FC_OK;
}

/* A read placed at entry i (> 0) first checks the entries its numbering
 * rests on most often: entry 0, and entry i - 1, which must end where
 * entry i starts.  An entry that swallows a record (entry 0 sized over
 * records 0 and 1, the entries after it true) would otherwise number every
 * record of the part one too low, and no record the part reaches would
 * contradict it.  Headers only: a record's data is the business of the part
 * that owns it.  (A forged entry between the two is met by the part that
 * reads it, and by featc index --check.) */
static fc_status check_entries_before(fc_reader *r, const fc_index_entry *e, size_t n, size_t i)
{
    fc_status s;
    if (i == 0 || i > n)
        return FC_OK;
    s = check_entry(r, e, n, 0);
    if (s == FC_OK && i > 1)
        s = check_entry(r, e, n, i - 1);
    return s;
}

fc_status fc_reader_range_index(fc_reader *r, const fc_index_entry *entries, size_t n,
                                uint64_t begin, uint64_t end)
{
    size_t i;
    fc_status s;
    if (r == NULL || (entries == NULL && n > 0) || begin > end)
        return FC_ERR_ARG;
    s = fc_reader_set_limit(r, end);
    if (s != FC_OK)
        return s;
    i = fc_index_lower_bound(entries, n, begin);
    if (i < n) {
        s = check_entries_before(r, entries, n, i);
        if (s != FC_OK)
            return s;
        s = fc_reader_seek(r, entries[i].offset, (uint64_t)i);
        if (s == FC_OK)
            claim_index(r, entries, n);
        return s;
    }
    /* past the last entry: on from where the index's records end */
    s = fc_reader_seek(r, index_end(entries, n), (uint64_t)n);
    if (s != FC_OK)
        return s;
    return fc_reader_skip_to(r, begin);
}

fc_status fc_reader_records(fc_reader *r, const fc_index_entry *entries, size_t n,
                            uint64_t first, uint64_t last)
{
    fc_status s;
    if (r == NULL || (entries == NULL && n > 0) || first > last || first > (uint64_t)n)
        return FC_ERR_ARG;
    if (last > (uint64_t)n && last != UINT64_MAX) {
        fc_msg m = fc_error_begin(&r->err, FC_ERR_INDEX, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "records ");
        fc_msg_u64(&m, first);
        fc_msg_str(&m, " to ");
        fc_msg_u64(&m, last);
        fc_msg_str(&m, " reach past the index, which has ");
        fc_msg_u64(&m, (uint64_t)n);
        fc_msg_str(&m, n == 1 ? " entry" : " entries");
        r->failed = 1;
        return FC_ERR_INDEX;
    }
    /* the records [first, last) end where entry last starts, or the index's
     * last record ends: never, by the index's say-so, at the end of the file */
    s = fc_reader_set_limit(r, last < (uint64_t)n    ? entries[last].offset
                               : last == (uint64_t)n ? index_end(entries, n)
                                                     : UINT64_MAX);
    if (s != FC_OK)
        return s;
    s = check_entries_before(r, entries, n, (size_t)first);
    if (s != FC_OK)
        return s;
    s = fc_reader_seek(r, first < (uint64_t)n ? entries[first].offset : index_end(entries, n),
                       first);
    if (s == FC_OK)
        claim_index(r, entries, n);
    return s;
}

/* The first member at compressed offset `at` or later that starts at a
 * record (n if none). */
static size_t member_from(const fc_gzip_member *m, size_t n, uint64_t at)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2u;
        if (m[mid].offset < at)
            lo = mid + 1u;
        else
            hi = mid;
    }
    while (lo < n && m[lo].first_record == FC_NO_INDEX)
        lo++;
    return lo;
}

/* Member claims: each member the list names between the split's first and
 * the one that ends it starts where the list says, compressed and
 * decompressed, and (for a member that starts at a record) the record there
 * is the one it says.  The member starts come as the inflater meets them;
 * the records when the read reaches each claimed stream offset, the split's
 * end (its limit) included. */
static void say_member(fc_msg *m, size_t k, const fc_gzip_member *c)
{
    fc_msg_str(m, "member index entry ");
    fc_msg_u64(m, (uint64_t)k);
    fc_msg_str(m, " (");
    fc_msg_u64(m, c->offset);
    fc_msg_str(m, " ");
    fc_msg_u64(m, c->stream_offset);
    fc_msg_str(m, " ");
    if (c->first_record == FC_NO_INDEX)
        fc_msg_str(m, "-");
    else
        fc_msg_u64(m, c->first_record);
    fc_msg_str(m, ")");
}

static int member_met(fc_reader *r, uint64_t x, uint64_t t)
{
    const fc_gzip_member *c = (const fc_gzip_member *)r->claim_list;
    /* claims of a member start below x that none met: no member starts there */
    while (r->claim_met <= r->claim_last && c[r->claim_met].offset < x) {
        if (r->claim_bad == SIZE_MAX) {
            r->claim_bad = r->claim_met;
            r->claim_x = x;
            r->claim_t = t;
        }
        r->claim_met++;
    }
    if (r->claim_met <= r->claim_last && c[r->claim_met].offset == x) {
        if (c[r->claim_met].stream_offset != t && r->claim_bad == SIZE_MAX) {
            r->claim_bad = r->claim_met;
            r->claim_x = x;
            r->claim_t = t;
        }
        r->claim_met++;
    }
    return 0;
}

static int member_claims(fc_reader *r, int event, uint64_t x, uint64_t t)
{
    const fc_gzip_member *c = (const fc_gzip_member *)r->claim_list;
    size_t k = r->claim_next;
    fc_msg m;
    if (event == FC_CLAIM_MEMBER)
        return member_met(r, x, t);
    if (r->claim_bad == k) {
        m = fc_error_begin(&r->err, FC_ERR_INDEX, r->next_index, c[k].stream_offset);
        say_member(&m, k, &c[k]);
        if (r->claim_x == c[k].offset) {
            fc_msg_str(&m, " says the member at compressed offset ");
            fc_msg_u64(&m, c[k].offset);
            fc_msg_str(&m, " starts at stream offset ");
            fc_msg_u64(&m, c[k].stream_offset);
            fc_msg_str(&m, "; it starts at ");
            fc_msg_u64(&m, r->claim_t);
        } else {
            fc_msg_str(&m, " says a GZIP member starts at compressed offset ");
            fc_msg_u64(&m, c[k].offset);
            fc_msg_str(&m, "; none does (the next member starts at compressed offset ");
            fc_msg_u64(&m, r->claim_x);
            fc_msg_str(&m, ", stream offset ");
            fc_msg_u64(&m, r->claim_t);
            fc_msg_str(&m, ")");
        }
        return FC_ERR_INDEX;
    }
    if (r->claim_met <= k) {
        /* the bytes at the claimed stream offset are read in: a member
         * starting there would have been met */
        m = fc_error_begin(&r->err, FC_ERR_INDEX, r->next_index, c[k].stream_offset);
        say_member(&m, k, &c[k]);
        fc_msg_str(&m, " says a GZIP member starts at compressed offset ");
        fc_msg_u64(&m, c[k].offset);
        fc_msg_str(&m, ", stream offset ");
        fc_msg_u64(&m, c[k].stream_offset);
        if (r->end == r->start) {
            fc_msg_str(&m, "; the stream ends at stream offset ");
            fc_msg_u64(&m, r->pos);
        } else {
            fc_msg_str(&m, "; no member starts there");
        }
        return FC_ERR_INDEX;
    }
    if (c[k].first_record != FC_NO_INDEX &&
        (r->pos != c[k].stream_offset || r->next_index != c[k].first_record)) {
        m = fc_error_begin(&r->err, FC_ERR_INDEX, r->next_index, c[k].stream_offset);
        say_member(&m, k, &c[k]);
        fc_msg_str(&m, " says record ");
        fc_msg_u64(&m, c[k].first_record);
        fc_msg_str(&m, " starts at stream offset ");
        fc_msg_u64(&m, c[k].stream_offset);
        if (r->pos != c[k].stream_offset) {
            fc_msg_str(&m, "; a record runs across it, to stream offset ");
            fc_msg_u64(&m, r->pos);
        } else {
            fc_msg_str(&m, "; the record there is record ");
            fc_msg_u64(&m, r->next_index);
        }
        return FC_ERR_INDEX;
    }
    r->claim_next = ++k;
    r->claim_at = k <= r->claim_last ? c[k].stream_offset : UINT64_MAX;
    return 0;
}

/* A member list whose members start past the bytes of a memory reader is
 * not this file's: it fails here, in every split it places. */
static fc_status members_fit(fc_reader *r, const fc_gzip_member *members, size_t n)
{
    fc_msg m;
    if (n == 0) {
        /* every GZIP file has a first member, at 0 0 0: an empty list
         * would give every split nothing */
        m = fc_error_begin(&r->err, FC_ERR_INDEX, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "the member index is empty, but a GZIP file's first member starts at "
                       "0 0 0");
        r->failed = 1;
        return FC_ERR_INDEX;
    }
    if (r->source != 1 || members[n - 1].offset < (uint64_t)r->src_len)
        return FC_OK;
    m = fc_error_begin(&r->err, FC_ERR_INDEX, FC_NO_INDEX, members[n - 1].offset);
    say_member(&m, n - 1, &members[n - 1]);
    fc_msg_str(&m, " says a GZIP member starts at compressed offset ");
    fc_msg_u64(&m, members[n - 1].offset);
    fc_msg_str(&m, ", past the end of the file (");
    fc_msg_u64(&m, (uint64_t)r->src_len);
    fc_msg_str(&m, " bytes)");
    r->failed = 1;
    return FC_ERR_INDEX;
}

fc_status fc_reader_range_members(fc_reader *r, const fc_gzip_member *members, size_t n,
                                  uint64_t begin, uint64_t end)
{
    size_t i, j;
    fc_status s;
    if (r == NULL || (members == NULL && n > 0) || begin > end)
        return FC_ERR_ARG;
    s = members_fit(r, members, n);
    if (s != FC_OK)
        return s;
    i = member_from(members, n, begin);
    j = member_from(members, n, end);
    if (i >= j) {
        /* no member starts here: nothing to read */
        s = fc_reader_set_limit(r, 0);
        return s;
    }
    s = fc_reader_set_limit(r, j < n ? members[j].stream_offset : UINT64_MAX);
    if (s != FC_OK)
        return s;
    s = fc_reader_seek_member(r, &members[i]);
    if (s != FC_OK)
        return s;
    /* every claim from the member after the first to the one that ends the
     * split (the last member when none does) */
    r->claim_fn = member_claims;
    r->claim_list = members;
    r->claim_n = n;
    r->claim_met = i;
    r->claim_next = i + 1;
    r->claim_last = j < n ? j : n - 1;
    r->claim_bad = SIZE_MAX;
    r->claim_at = i + 1 <= r->claim_last ? members[i + 1].stream_offset : UINT64_MAX;
    return FC_OK;
}

fc_status fc_index_verify(fc_reader *r, const fc_index_entry *entries, size_t n, fc_error *err)
{
    size_t i = 0;
    fc_record rec;
    fc_status s;
    if (r == NULL || (entries == NULL && n > 0))
        return FC_ERR_ARG;
    while ((s = fc_reader_next(r, &rec)) == FC_OK) {
        uint64_t size = (uint64_t)rec.length + FC_RECORD_OVERHEAD;
        if (i == n) {
            fc_msg m = fc_error_begin(err, FC_ERR_INDEX, (uint64_t)i, rec.offset);
            fc_msg_str(&m, "the index ends after ");
            fc_msg_u64(&m, (uint64_t)n);
            fc_msg_str(&m, n == 1 ? " entry" : " entries");
            fc_msg_str(&m, ", but the file has a record at offset ");
            fc_msg_u64(&m, rec.offset);
            fc_msg_str(&m, " (");
            fc_msg_u64(&m, size);
            fc_msg_str(&m, " bytes)");
            return FC_ERR_INDEX;
        }
        if (entries[i].offset != rec.offset || entries[i].size != size)
            return entry_differs(err, (uint64_t)i, &entries[i], rec.offset, size);
        i++;
    }
    if (s != FC_END) {
        if (err != NULL && err != fc_reader_error(r))
            *err = *fc_reader_error(r);
        return s;
    }
    if (i < n)
        return file_ends_early(err, (uint64_t)i, entries, n);
    return FC_OK;
}
