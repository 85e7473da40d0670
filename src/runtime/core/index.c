/* Index files and exact splits by index.  See featc/fc_index.h. */
#include "featc/fc_index.h"

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
        if (offset < next_free) {
            fc_msg m = fc_error_begin(err, FC_ERR_INDEX, FC_NO_INDEX, (uint64_t)line_start);
            fc_msg_str(&m, "index line ");
            fc_msg_u64(&m, (uint64_t)line);
            fc_msg_str(&m, ", column 1: the record at offset ");
            fc_msg_u64(&m, offset);
            fc_msg_str(&m, " starts before the previous one ends (at ");
            fc_msg_u64(&m, next_free);
            fc_msg_str(&m, "); entries must be in file order");
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

/* Where the index's records end: the first offset after its last record. */
static uint64_t index_end(const fc_index_entry *entries, size_t n)
{
    return n == 0 ? 0 : entries[n - 1].offset + entries[n - 1].size;
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
    if (i < n)
        return fc_reader_seek(r, entries[i].offset, (uint64_t)i);
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
    s = fc_reader_set_limit(r, last < (uint64_t)n ? entries[last].offset : UINT64_MAX);
    if (s != FC_OK)
        return s;
    return fc_reader_seek(r, first < (uint64_t)n ? entries[first].offset : index_end(entries, n),
                          first);
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

fc_status fc_reader_range_members(fc_reader *r, const fc_gzip_member *members, size_t n,
                                  uint64_t begin, uint64_t end)
{
    size_t i, j;
    fc_status s;
    if (r == NULL || (members == NULL && n > 0) || begin > end)
        return FC_ERR_ARG;
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
    return fc_reader_seek_member(r, &members[i]);
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
        if (entries[i].offset != rec.offset || entries[i].size != size) {
            fc_msg m = fc_error_begin(err, FC_ERR_INDEX, (uint64_t)i, rec.offset);
            fc_msg_str(&m, "index entry ");
            fc_msg_u64(&m, (uint64_t)i);
            fc_msg_str(&m, " says offset ");
            fc_msg_u64(&m, entries[i].offset);
            fc_msg_str(&m, " size ");
            fc_msg_u64(&m, entries[i].size);
            fc_msg_str(&m, "; record ");
            fc_msg_u64(&m, (uint64_t)i);
            fc_msg_str(&m, " of the file is at offset ");
            fc_msg_u64(&m, rec.offset);
            fc_msg_str(&m, " with size ");
            fc_msg_u64(&m, size);
            return FC_ERR_INDEX;
        }
        i++;
    }
    if (s != FC_END) {
        if (err != NULL && err != fc_reader_error(r))
            *err = *fc_reader_error(r);
        return s;
    }
    if (i < n) {
        fc_msg m = fc_error_begin(err, FC_ERR_INDEX, (uint64_t)i, entries[i].offset);
        fc_msg_str(&m, "the file ends after ");
        fc_msg_u64(&m, (uint64_t)i);
        fc_msg_str(&m, i == 1 ? " record" : " records");
        fc_msg_str(&m, ", but the index has ");
        fc_msg_u64(&m, (uint64_t)n);
        fc_msg_str(&m, " entries (entry ");
        fc_msg_u64(&m, (uint64_t)i);
        fc_msg_str(&m, " says offset ");
        fc_msg_u64(&m, entries[i].offset);
        fc_msg_str(&m, ")");
        return FC_ERR_INDEX;
    }
    return FC_OK;
}
