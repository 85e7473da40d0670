/* Opening TFRecord inputs for the command-line tools: see fc_input.h. */
#include "featc/fc_input.h"

#include "ahead.h"
#include "frame.h"
#include "walks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define INITIAL_BUFFER (256u * 1024u)
#define WORK_SIZE (FC_INFLATE_ARENA_SIZE + 256u * 1024u)
#define DEFAULT_MAX_RECORD ((size_t)1 << 30)

static fc_status open_error(fc_input *in, fc_status status, const char *what, int errnum)
{
    fc_msg m = fc_error_begin(&in->err, status, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, what);
    if (errnum != 0) {
        fc_msg_str(&m, ": ");
        fc_msg_str(&m, strerror(errnum));
    }
    in->err.sys_errno = errnum;
    return status;
}

/* After an index or member list's claim failed the read: which list. */
static void index_note(fc_input *in)
{
    fc_msg m;
    if (in->index_path == NULL)
        return;
    m = fc_error_more(&in->err);
    fc_msg_str(&m, " (");
    fc_msg_str(&m, in->members != NULL ? "member index " : "index ");
    fc_msg_str(&m, in->index_path);
    fc_msg_str(&m, ": is it this file's? featc index --check)");
}

char *fc_input_sibling(const char *path, const char *suffix)
{
    size_t n = strlen(path), k = strlen(suffix);
    char *p = (char *)malloc(n + k + 1);
    if (p != NULL) {
        memcpy(p, path, n);
        memcpy(p + n, suffix, k + 1);
    }
    return p;
}

/* fc_index_parse and fc_members_parse, over untyped arrays. */
typedef fc_status (*text_parser)(const char *text, size_t len, void *out, size_t cap,
                                 size_t *count, fc_error *err);

static fc_status parse_entries(const char *text, size_t len, void *out, size_t cap, size_t *count,
                               fc_error *err)
{
    return fc_index_parse(text, len, (fc_index_entry *)out, cap, count, err);
}

static fc_status parse_members(const char *text, size_t len, void *out, size_t cap, size_t *count,
                               fc_error *err)
{
    return fc_members_parse(text, len, (fc_gzip_member *)out, cap, count, err);
}

/* Maps a text index (or takes its text: text not NULL, path naming it),
 * counts its lines, allocates and parses: what the loaders below share.
 * what names the kind in the error. */
static fc_status load_text(const char *path, const char *text, size_t len, const char *what,
                           text_parser parse, size_t size, void **out, size_t *n, fc_error *err)
{
    fc_mapped_file map;
    fc_status s = FC_OK;
    fc_error perr;
    size_t count = 0;
    *out = NULL;
    *n = 0;
    fc_map_guard *guard = NULL;
    uint64_t gone;
    memset(&map, 0, sizeof map);
    if (text == NULL) {
        s = fc_input_map(path, &map, &guard, &perr);
        text = (const char *)map.data;
        len = map.size;
    }
    if (s == FC_OK)
        s = parse(text, len, NULL, 0, &count, &perr);
    if (s == FC_OK) {
        *out = malloc((count > 0 ? count : 1) * size);
        if (*out == NULL) {
            fc_msg m = fc_error_begin(&perr, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "out of memory");
            s = FC_ERR_NO_MEMORY;
        } else {
            s = parse(text, len, *out, count, n, &perr);
        }
    }
    if (guard != NULL || map.data != NULL) {
        if (fc_input_map_shrank(guard, &gone))
            s = fc_input_changed_error(&perr, path, (uint64_t)map.size, gone);
        fc_input_unmap(&map, guard);
    }
    if (s != FC_OK) {
        fc_msg m = fc_error_begin(err, s, FC_NO_INDEX, perr.offset);
        if (err != NULL)
            err->sys_errno = perr.sys_errno;
        fc_msg_str(&m, what);
        fc_msg_str(&m, path);
        fc_msg_str(&m, ": ");
        fc_msg_str(&m, perr.sys_errno != 0 ? strerror(perr.sys_errno) : perr.message);
        free(*out);
        *out = NULL;
        *n = 0;
    }
    return s;
}

fc_status fc_input_load_index(const char *path, fc_index_entry **entries, size_t *n,
                              fc_error *err)
{
    void *out;
    fc_status s = load_text(path, NULL, 0, "index ", parse_entries, sizeof **entries, &out, n,
                            err);
    *entries = (fc_index_entry *)out;
    return s;
}

/* An index from opt: index_text when set (index_path naming it), else the
 * file index_path. */
static fc_status load_index_opt(const char *path, const fc_input_options *opt,
                                fc_index_entry **entries, size_t *n, fc_error *err)
{
    void *out;
    fc_status s = load_text(path, opt->index_text, opt->index_len, "index ", parse_entries,
                            sizeof **entries, &out, n, err);
    *entries = (fc_index_entry *)out;
    return s;
}

fc_status fc_input_load_members(const char *path, fc_gzip_member **members, size_t *n,
                                fc_error *err)
{
    void *out;
    fc_status s = load_text(path, NULL, 0, "member index ", parse_members, sizeof **members,
                            &out, n, err);
    *members = (fc_gzip_member *)out;
    return s;
}

static fc_status scan_members(const char *name, const void *data, size_t len,
                              const fc_input_options *opt, fc_gzip_member **members, size_t *n,
                              fc_error *err);

fc_status fc_input_scan_members_mem(const char *name, const void *data, size_t len,
                                    const fc_map_guard *guard, const fc_input_options *opt,
                                    fc_gzip_member **members, size_t *n, fc_error *err)
{
    uint64_t gone;
    fc_status s = scan_members(name, data, len, opt, members, n, err);
    if (fc_input_map_shrank(guard, &gone)) {
        free(*members);
        *members = NULL;
        *n = 0;
        s = fc_input_changed_error(err, name, (uint64_t)len, gone);
    }
    return s;
}

/* The scan itself: fc_input_scan_members_mem without the map's check. */
static fc_status scan_members(const char *name, const void *data, size_t len,
                              const fc_input_options *opt, fc_gzip_member **members, size_t *n,
                              fc_error *err)
{
    fc_input_options whole = *opt;
    size_t cap = 1024;
    *members = NULL;
    *n = 0;
    whole.part = FC_PART_ALL;
    whole.index_path = NULL;
    for (;;) {
        fc_input in;
        fc_record rec;
        fc_status s;
        size_t logged, j = 0, kept = 0;
        fc_gzip_member *log = (fc_gzip_member *)malloc(cap * sizeof *log);
        if (log == NULL) {
            fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "out of memory");
            return FC_ERR_NO_MEMORY;
        }
        s = fc_input_open_mem(&in, name, data, len, &whole);
        if (s == FC_OK && fc_reader_compression(&in.reader) != FC_COMPRESSION_GZIP) {
            fc_msg m = fc_error_begin(&in.err, FC_ERR_UNSUPPORTED, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "this file is ");
            fc_msg_str(&m, fc_compression_name(fc_reader_compression(&in.reader)));
            fc_msg_str(&m, ", not GZIP: it has no members");
            s = FC_ERR_UNSUPPORTED;
        }
        if (s == FC_OK) {
            fc_reader_log_members(&in.reader, log, cap);
            /* each member that starts where a record does gets its index */
            while ((s = fc_input_next(&in, &rec)) == FC_OK) {
                logged = (size_t)(fc_reader_members(&in.reader) < cap
                                      ? fc_reader_members(&in.reader)
                                      : cap);
                for (; j < logged && log[j].stream_offset <= rec.offset; j++)
                    if (log[j].stream_offset == rec.offset) {
                        log[j].first_record = rec.index;
                        log[kept++] = log[j];
                    }
            }
        }
        if (s != FC_END) {
            if (err != NULL)
                *err = in.err;
            fc_input_close(&in);
            free(log);
            return s;
        }
        if (fc_reader_members(&in.reader) > cap) {
            /* more members than the log held: again, with room for all */
            cap = (size_t)fc_reader_members(&in.reader);
            fc_input_close(&in);
            free(log);
            continue;
        }
        fc_input_close(&in);
        *members = log;
        *n = kept;
        return FC_OK;
    }
}

fc_status fc_input_scan_members(const char *path, const fc_input_options *opt,
                                fc_gzip_member **members, size_t *n, fc_error *err)
{
    fc_mapped_file map;
    fc_map_guard *guard = NULL;
    fc_status s;
    *members = NULL;
    *n = 0;
    memset(&map, 0, sizeof map);
    /* one open: the file mapped, read again from the map when the log was short */
    s = fc_input_map(path, &map, &guard, err);
    if (s != FC_OK)
        return s;
    s = fc_input_scan_members_mem(path, map.data, map.size, guard, opt, members, n, err);
    fc_input_unmap(&map, guard);
    return s;
}

/* The member index of a GZIP file's part: opt->index_path, FILE.members,
 * or a scan. */
static fc_status input_members(fc_input *in, const fc_input_options *opt)
{
    const char *path = opt->index_path;
    if (path == NULL) {
        in->index_path = fc_input_sibling(in->path, ".members");
        if (in->index_path == NULL)
            return open_error(in, FC_ERR_NO_MEMORY, "out of memory", 0);
        if (access(in->index_path, F_OK) != 0) {
            free(in->index_path);
            in->index_path = NULL;
            return in->data != NULL
                       ? fc_input_scan_members_mem(in->path, in->data, in->size, in->guard, opt,
                                                   &in->members, &in->members_n, &in->err)
                       : fc_input_scan_members(in->path, opt, &in->members, &in->members_n,
                                               &in->err);
        }
    } else {
        in->index_path = fc_input_sibling(path, "");
        if (in->index_path == NULL)
            return open_error(in, FC_ERR_NO_MEMORY, "out of memory", 0);
    }
    if (opt->index_text != NULL) {
        void *out;
        fc_status s = load_text(in->index_path, opt->index_text, opt->index_len,
                                "member index ", parse_members, sizeof *in->members, &out,
                                &in->members_n, &in->err);
        in->members = (fc_gzip_member *)out;
        return s;
    }
    return fc_input_load_members(in->index_path, &in->members, &in->members_n, &in->err);
}

uint64_t fc_input_split_offset(uint64_t size, uint64_t i, uint64_t n)
{
    /* size*i/n = (size/n)*i + (size%n)*i/n; the last product can pass 2^64,
     * so it is formed in two words and divided bit by bit */
    uint64_t q = size / n, r = size % n, lo, hi, rem = 0, quot = 0;
    uint64_t r0 = r & 0xffffffffu, r1 = r >> 32, i0 = i & 0xffffffffu, i1 = i >> 32;
    uint64_t p00 = r0 * i0, p01 = r0 * i1, p10 = r1 * i0, mid;
    int bit;
    if (n == 0 || i > n)
        return size;
    mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    lo = (p00 & 0xffffffffu) | mid << 32;
    hi = r1 * i1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    for (bit = 127; bit >= 0; bit--) {
        uint64_t carry = rem >> 63;
        rem = rem << 1 | ((bit >= 64 ? hi >> (bit - 64) : lo >> bit) & 1u);
        quot <<= 1; /* r*i/n < n: the quotient's high bits stay 0 */
        if (carry != 0 || rem >= n) {
            rem -= n;
            quot |= 1u;
        }
    }
    return q * i + quot;
}

/* 1 when the walk got to the part's range (or the file's end), 0 when a
 * header before it broke the chain. */
static int walk_reached(fc_input *in)
{
    uint64_t at = fc_reader_offset(&in->reader);
    return at >= in->part_begin || at >= (uint64_t)in->size;
}

/* A boundary kept for this file (walks.h) is a claim: an intact header
 * starts there (its length's CRC matches, its record fits), or the file
 * ends there. */
static int boundary_holds(const fc_input *in, uint64_t at)
{
    const uint8_t *p = in->data + at;
    if (at >= (uint64_t)in->size)
        return at == (uint64_t)in->size;
    return (uint64_t)in->size - at >= FC_RECORD_OVERHEAD &&
           le64(p) <= (uint64_t)in->size - at - FC_RECORD_OVERHEAD && length_crc_ok(p);
}

/* The walk to a part of a regular file (docs/record-tools.md, "Splits"):
 * the headers before the range, from the nearest boundary walked to before
 * in this process (walks.h) or else from the file's start.  A boundary
 * without an intact header, or whose chain breaks before the range, is no
 * licence: the walk starts over from the start, and a header damaged there
 * is reported as a sequential read reports it.  Where the walk gets to is
 * noted when the headers were checked (not under FC_CRC_NONE). */
static fc_status walk_to_part(fc_input *in, const fc_input_options *opt)
{
    fc_reader *r = &in->reader;
    uint64_t from, index;
    fc_status s = fc_reader_set_limit(r, in->part_end);
    if (s != FC_OK)
        return s;
    if (fc_walks_find(&in->file_id, in->part_begin, &from, &index) && from > 0 &&
        boundary_holds(in, from)) {
        s = fc_reader_seek(r, from, index);
        if (s == FC_OK)
            s = fc_reader_skip_to(r, in->part_begin);
        if (s != FC_OK)
            return s;
        if (!walk_reached(in) && (s = fc_reader_seek(r, 0, 0)) != FC_OK)
            return s;
    }
    if (!walk_reached(in)) {
        s = fc_reader_skip_to(r, in->part_begin);
        if (s != FC_OK || !walk_reached(in))
            return s; /* (the read reports the broken header) */
    }
    if (opt->crc_policy != FC_CRC_NONE) {
        fc_walks_note(&in->file_id, fc_reader_offset(r), fc_reader_count(r));
        in->walked = 1;
    }
    return FC_OK;
}

/* Positions in->reader on the part of the file opt asks for. */
static fc_status input_part(fc_input *in, const fc_input_options *opt)
{
    uint64_t size = in->size;
    fc_status s;
    const char *index_path = opt->index_path;
    fc_compression c = fc_reader_compression(&in->reader);
    if (c == FC_COMPRESSION_GZIP && opt->part != FC_PART_RECORDS) {
        s = input_members(in, opt);
        if (s != FC_OK)
            return s;
        if (opt->part == FC_PART_SPLIT) {
            in->part_begin = fc_input_split_offset(size, opt->part_a, opt->part_b);
            in->part_end = fc_input_split_offset(size, opt->part_a + 1, opt->part_b);
        } else {
            in->part_begin = opt->part_a < size ? opt->part_a : size;
            in->part_end = opt->part_b < size ? opt->part_b : size;
        }
        s = fc_reader_range_members(&in->reader, in->members, in->members_n, in->part_begin,
                                    in->part_end);
        in->part_start = fc_reader_offset(&in->reader);
        if (s != FC_OK) {
            in->err = *fc_reader_error(&in->reader);
            if (s == FC_ERR_INDEX)
                index_note(in);
        }
        return s;
    }
    if (c != FC_COMPRESSION_NONE) {
        fc_msg m = fc_error_begin(&in->err, FC_ERR_UNSUPPORTED, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, c == FC_COMPRESSION_GZIP
                           ? "--records needs an uncompressed file (a GZIP file is split by "
                             "its members with --split or --range)"
                           : "a part of a file (--split, --range, --records) needs an "
                             "uncompressed or GZIP file; this one is ZLIB, one stream whose "
                             "records can only be reached by decompressing from its start");
        return FC_ERR_UNSUPPORTED;
    }
    if (opt->part == FC_PART_RECORDS && index_path == NULL) {
        in->index_path = fc_input_sibling(in->path, ".idx");
        if (in->index_path == NULL)
            return open_error(in, FC_ERR_NO_MEMORY, "out of memory", 0);
        if (access(in->index_path, F_OK) != 0) {
            fc_msg m = fc_error_begin(&in->err, FC_ERR_IO, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "--records needs an index, and there is no ");
            fc_msg_str(&m, in->index_path);
            fc_msg_str(&m, " (write one with `featc index FILE`, or name one with --index)");
            return FC_ERR_IO;
        }
        index_path = in->index_path;
    } else if (index_path != NULL) {
        in->index_path = fc_input_sibling(index_path, "");
        if (in->index_path == NULL)
            return open_error(in, FC_ERR_NO_MEMORY, "out of memory", 0);
    }
    if (index_path != NULL) {
        s = load_index_opt(index_path, opt, &in->index, &in->index_n, &in->err);
        if (s != FC_OK)
            return s;
    }
    switch (opt->part) {
    case FC_PART_SPLIT:
        in->part_begin = fc_input_split_offset(size, opt->part_a, opt->part_b);
        in->part_end = fc_input_split_offset(size, opt->part_a + 1, opt->part_b);
        break;
    case FC_PART_RANGE:
        in->part_begin = opt->part_a < size ? opt->part_a : size;
        in->part_end = opt->part_b < size ? opt->part_b : size;
        break;
    default:
        break;
    }
    if (opt->part == FC_PART_RECORDS) {
        if (opt->part_a > (uint64_t)in->index_n) {
            fc_msg m = fc_error_begin(&in->err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "--records starts at record ");
            fc_msg_u64(&m, opt->part_a);
            fc_msg_str(&m, ", but the index ");
            fc_msg_str(&m, index_path);
            fc_msg_str(&m, " has ");
            fc_msg_u64(&m, (uint64_t)in->index_n);
            return FC_ERR_ARG;
        }
        if (opt->part_b > (uint64_t)in->index_n && opt->part_b != UINT64_MAX) {
            /* the records past the index are not its to place: an index
             * whose file grew, or a short one, is no licence to read on */
            fc_msg m = fc_error_begin(&in->err, FC_ERR_ARG, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "--records ends at record ");
            fc_msg_u64(&m, opt->part_b);
            fc_msg_str(&m, ", but the index ");
            fc_msg_str(&m, index_path);
            fc_msg_str(&m, " has ");
            fc_msg_u64(&m, (uint64_t)in->index_n);
            fc_msg_str(&m, " (leave the end out, --records=A:, to read on to the end of the "
                           "file)");
            return FC_ERR_ARG;
        }
        s = fc_reader_records(&in->reader, in->index, in->index_n, opt->part_a, opt->part_b);
        in->part_begin = fc_reader_offset(&in->reader);
        in->part_end = opt->part_b < (uint64_t)in->index_n ? in->index[opt->part_b].offset
                       : opt->part_b == UINT64_MAX || in->index_n == 0
                           ? (opt->part_b == UINT64_MAX ? size : 0)
                           : in->index[in->index_n - 1].offset + in->index[in->index_n - 1].size;
    } else if (in->index != NULL) {
        s = fc_reader_range_index(&in->reader, in->index, in->index_n, in->part_begin,
                                  in->part_end);
    } else if (opt->sync == FC_SYNC_WALK && in->file_known) {
        s = walk_to_part(in, opt);
    } else {
        s = fc_reader_range(&in->reader, in->part_begin, in->part_end, opt->sync);
        if (opt->sync == FC_SYNC_CHECKSUM) {
            in->junction = 1; /* checked when the split ends */
            in->part_opt = *opt;
            in->part_opt.index_path = NULL;
        }
    }
    in->part_start = fc_reader_offset(&in->reader);
    in->released = in->part_start; /* (the pages before it are other parts') */
    if (s != FC_OK) {
        in->err = *fc_reader_error(&in->reader);
        if (s == FC_ERR_INDEX)
            index_note(in);
    }
    return s;
}

/* What every input starts with: its name, limit and buffers. */
static fc_status input_setup(fc_input *in, const char *path, const fc_input_options *opt,
                             fc_reader_options *ro)
{
    memset(in, 0, sizeof *in);
    fc_error_clear(&in->err);
    in->path = path;
    in->fd = -1;
    in->max_record_size = opt->max_record_size != 0 ? opt->max_record_size : DEFAULT_MAX_RECORD;
    memset(ro, 0, sizeof *ro);
    ro->compression = opt->compression;
    ro->crc_policy = opt->crc_policy;
    in->work = malloc(WORK_SIZE);
    in->buf = (unsigned char *)malloc(INITIAL_BUFFER);
    if (in->work == NULL || in->buf == NULL)
        return open_error(in, FC_ERR_NO_MEMORY, "out of memory", 0);
    in->cap = INITIAL_BUFFER;
    ro->buffer = in->buf;
    ro->buffer_size = in->cap;
    ro->work = in->work;
    ro->work_size = WORK_SIZE;
    return FC_OK;
}

/* A stream: a pipe, a terminal, standard input. */
static fc_status input_stream(fc_input *in, const fc_input_options *opt,
                              const fc_reader_options *ro)
{
    if (opt->part != FC_PART_ALL)
        return open_error(in, FC_ERR_UNSUPPORTED,
                          "a part of a file (--split, --range, --records) needs a regular "
                          "file, not a stream",
                          0);
    return fc_reader_init_fd(&in->reader, in->fd, ro, &in->err);
}

/* A regular file read whole goes through read(2) into the reader's
 * buffer, not a map.  The buffer (256 KiB, reused) stays in the cache and
 * its pages stay mapped, where a map's pages are new to the page tables on
 * each open: on the virtual machines this was measured on, first touches of
 * mapped pages made the reader alone 5x slower than over the same bytes in
 * memory (1.2 against 6.5 GB/s; 4-6 GB/s read this way).  The read stops at
 * the size the file had when it was opened, as a map does; a file that ends
 * sooner (cut while it is read) is the changed-size error a map's guard
 * gives, at the offset where the bytes were gone. */
static fc_status file_pull(void *ctx, void *buf, size_t n, size_t *got, fc_error *err)
{
    fc_input *in = (fc_input *)ctx;
    uint64_t left = (uint64_t)in->size - in->pulled;
    *got = 0;
    if ((uint64_t)n > left)
        n = (size_t)left;
    if (n == 0)
        return FC_OK; /* the size at open: the end */
    for (;;) {
        ssize_t k = read(in->fd, buf, n); /* (read, not pread: the descriptor's offset
                                             tells a watcher how far the read is) */
        if (k > 0) {
            in->pulled += (uint64_t)k;
            *got = (size_t)k;
            return FC_OK;
        }
        if (k == 0)
            return fc_input_changed_error(err, in->path, (uint64_t)in->size, in->pulled);
        if (errno != EINTR) {
            int e = errno;
            fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, in->pulled);
            fc_msg_str(&m, "read failed at file offset ");
            fc_msg_u64(&m, in->pulled);
            fc_msg_str(&m, ": ");
            fc_msg_str(&m, strerror(e));
            if (err != NULL)
                err->sys_errno = e;
            return FC_ERR_IO;
        }
    }
}

static fc_status file_seek(void *ctx, uint64_t offset, fc_error *err)
{
    fc_input *in = (fc_input *)ctx;
    if (offset > (uint64_t)in->size)
        offset = (uint64_t)in->size;
    if (lseek(in->fd, (off_t)offset, SEEK_SET) < 0) {
        int e = errno;
        fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, offset);
        fc_msg_str(&m, "cannot seek to offset ");
        fc_msg_u64(&m, offset);
        fc_msg_str(&m, ": ");
        fc_msg_str(&m, strerror(e));
        if (err != NULL)
            err->sys_errno = e;
        return FC_ERR_IO;
    }
    in->pulled = offset;
    return FC_OK;
}

/* inflate_ahead: the file (detected GZIP or ZLIB) inflated on a thread,
 * the reader reading what it inflates; on one thread as before when no
 * thread starts. */
static fc_status input_ahead(fc_input *in, const fc_reader_options *ro)
{
    fc_reader_options plain = *ro;
    fc_compression c = fc_reader_compression(&in->reader);
    in->ro = *ro;
    in->compression = c;
    if ((c != FC_COMPRESSION_GZIP && c != FC_COMPRESSION_ZLIB) ||
        (in->ahead = fc_ahead_start(in->fd, (uint64_t)in->size, c)) == NULL)
        return FC_OK;
    plain.compression = FC_COMPRESSION_NONE;
    return fc_reader_init_pull(&in->reader, fc_ahead_pull, in->ahead, &plain, &in->err);
}

/* The inflater thread stopped short (or the records ended otherwise than
 * as they should): the file read again on one thread from its first byte,
 * past the records already given, so that what follows, the error
 * included, is the one-thread read's. */
static fc_status ahead_fallback(fc_input *in)
{
    uint64_t k, n = in->ahead_records;
    fc_reader_options ro = in->ro;
    fc_record rec;
    fc_status s;
    fc_ahead_stop(in->ahead);
    in->ahead = NULL;
    if (lseek(in->fd, 0, SEEK_SET) < 0)
        return open_error(in, FC_ERR_IO, "cannot seek", errno);
    in->pulled = 0;
    ro.buffer = in->buf;
    ro.buffer_size = in->cap;
    s = fc_reader_init_pull_seekable(&in->reader, file_pull, file_seek, in, &ro, &in->err);
    for (k = 0; s == FC_OK && k < n; k++)
        s = fc_input_next(in, &rec);
    if (s == FC_OK && in->gathering)
        fc_reader_keep(&in->reader);
    return s;
}

fc_status fc_input_open(fc_input *in, const char *path, const fc_input_options *opt)
{
    fc_reader_options ro;
    struct stat st;
    fc_status s = input_setup(in, path, opt, &ro);
    if (s != FC_OK)
        return s;
    if (strcmp(path, "-") == 0) {
        in->fd = STDIN_FILENO;
    } else {
        in->fd = opt->open_fd != NULL ? opt->open_fd(opt->open_ctx, path)
                                      : open(path, O_RDONLY | O_CLOEXEC);
        if (in->fd < 0)
            return open_error(in, FC_ERR_IO, "cannot open", errno);
        in->own_fd = 1;
        /* (a descriptor the caller had: read from the start) */
        if (opt->open_fd != NULL && lseek(in->fd, 0, SEEK_SET) < 0 && errno != ESPIPE)
            return open_error(in, FC_ERR_IO, "cannot seek", errno);
    }
    if (fstat(in->fd, &st) != 0)
        return open_error(in, FC_ERR_IO, "cannot stat", errno);
    if (S_ISDIR(st.st_mode))
        return open_error(in, FC_ERR_IO, "is a directory", 0);
    if (!S_ISREG(st.st_mode) || !in->own_fd)
        return input_stream(in, opt, &ro);
    in->regular = 1;
    if (opt->part == FC_PART_ALL) {
        if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX)
            return open_error(in, FC_ERR_TOO_LARGE, "file too large", 0);
        in->size = (size_t)st.st_size;
        in->pulled = 0;
        s = fc_reader_init_pull_seekable(&in->reader, file_pull, file_seek, in, &ro, &in->err);
        /* the compression known at open, as a map's is (callers ask) */
        if (s == FC_OK && (s = fc_reader_detect(&in->reader)) != FC_OK)
            in->err = *fc_reader_error(&in->reader);
        if (s == FC_OK && opt->inflate_ahead)
            s = input_ahead(in, &ro);
        return s;
    }
    s = fc_input_map_fd(in->fd, &in->map, &in->guard, &in->err);
    if (s != FC_OK)
        return s;
    in->data = in->map.data;
    in->size = in->map.size;
    in->file_id.dev = (uint64_t)st.st_dev;
    in->file_id.ino = (uint64_t)st.st_ino;
    in->file_id.size = (uint64_t)st.st_size;
    in->file_id.mtime_s = (int64_t)st.st_mtim.tv_sec;
    in->file_id.mtime_ns = (int64_t)st.st_mtim.tv_nsec;
    in->file_known = in->map.size == (size_t)st.st_size;
    s = fc_reader_init_mem(&in->reader, in->data, in->size, &ro, &in->err);
    if (s != FC_OK || opt->part == FC_PART_ALL)
        return s;
    return input_part(in, opt);
}

fc_status fc_input_open_pull(fc_input *in, const char *name, fc_pull_fn fn, void *ctx,
                            const fc_input_options *opt)
{
    fc_reader_options ro;
    fc_status s = input_setup(in, name, opt, &ro);
    if (s != FC_OK)
        return s;
    if (opt->part != FC_PART_ALL)
        return open_error(in, FC_ERR_UNSUPPORTED,
                          "a part of a stream (split, byte range, records) needs its bytes or "
                          "a regular file: a stream is read from its first byte",
                          0);
    return fc_reader_init_pull(&in->reader, fn, ctx, &ro, &in->err);
}

fc_status fc_input_open_pull_seekable(fc_input *in, const char *name, fc_pull_fn fn,
                                      fc_seek_fn seek, void *ctx, uint64_t size,
                                      const fc_input_options *opt)
{
    fc_reader_options ro;
    fc_compression c;
    fc_status s = input_setup(in, name, opt, &ro);
    if (s != FC_OK)
        return s;
    s = fc_reader_init_pull_seekable(&in->reader, fn, seek, ctx, &ro, &in->err);
    if (s != FC_OK || opt->part == FC_PART_ALL)
        return s;
    in->size = size > SIZE_MAX ? SIZE_MAX : (size_t)size;
    /* (what the file is, from its first bytes, before the part moves it) */
    s = fc_reader_detect(&in->reader);
    if (s != FC_OK) {
        in->err = *fc_reader_error(&in->reader);
        return s;
    }
    c = fc_reader_compression(&in->reader);
    if (opt->index_path == NULL && c != FC_COMPRESSION_ZLIB)
        return open_error(in, FC_ERR_UNSUPPORTED,
                          c == FC_COMPRESSION_GZIP
                              ? "a part of a GZIP stream needs its member index (featc index "
                                "FILE.gz writes FILE.gz.members)"
                              : "a part of a stream needs its index (featc index FILE writes "
                                "FILE.idx): records are found by it, not by reading the bytes "
                                "before them",
                          0);
    return input_part(in, opt);
}

fc_status fc_input_open_mem(fc_input *in, const char *name, const void *data, size_t len,
                            const fc_input_options *opt)
{
    fc_reader_options ro;
    fc_status s = input_setup(in, name, opt, &ro);
    if (s != FC_OK)
        return s;
    in->data = (const uint8_t *)data;
    in->size = len;
    s = fc_reader_init_mem(&in->reader, data, len, &ro, &in->err);
    if (s != FC_OK || opt->part == FC_PART_ALL)
        return s;
    if (fc_reader_compression(&in->reader) == FC_COMPRESSION_GZIP && opt->index_path == NULL)
        return open_error(in, FC_ERR_UNSUPPORTED,
                          "a part of GZIP bytes in memory needs their member index file",
                          0);
    return input_part(in, opt);
}

/* TensorFlow's "record size too large", with the record and the limit. */
static fc_status too_large(fc_input *in, uint64_t record, uint64_t offset, uint64_t size)
{
    fc_msg m = fc_error_begin(&in->err, FC_ERR_TOO_LARGE, record, offset);
    fc_msg_str(&m, "record size too large: record ");
    fc_msg_u64(&m, record);
    fc_msg_str(&m, " at offset ");
    fc_msg_u64(&m, offset);
    fc_msg_str(&m, " declares ");
    fc_msg_u64(&m, size);
    fc_msg_str(&m, " bytes, more than --max-record-size (");
    fc_msg_u64(&m, in->max_record_size);
    fc_msg_str(&m, ")");
    return FC_ERR_TOO_LARGE;
}

/* The checksum sync's junction (docs/record-tools.md, "Splits"): a split placed by
 * the checksum sync reads exact records from its start on, and split 0
 * starts at 0; so each split, at its end, checks that the next split that
 * owns a record will start where this split's records go on (p).  It
 * places that split's sync as that split will (the same bytes and bound:
 * the next split of N for --split, the end of the file for --range).  A
 * sync that lands past p would skip the records in between (a damaged
 * record there fails its CRCs: its own error is reported), one that lands
 * before p is inside this split's last record (TFRecord bytes in a
 * record).  Either fails this split. */
static fc_status checksum_junction(fc_input *in, const fc_input_options *opt)
{
    uint64_t p = fc_reader_offset(&in->reader), b = in->part_end, e, q, k = opt->part_a + 1;
    fc_reader_options ro;
    fc_reader r;
    fc_status s;
    memset(&ro, 0, sizeof ro);
    ro.compression = FC_COMPRESSION_NONE;
    ro.crc_policy = opt->crc_policy;
    for (;;) {
        if (p >= (uint64_t)in->size)
            return FC_END; /* no record after this split's */
        e = opt->part == FC_PART_SPLIT ? fc_input_split_offset(in->size, k + 1, opt->part_b)
                                       : (uint64_t)in->size;
        if (fc_reader_init_mem(&r, in->data, in->size, &ro, NULL) != FC_OK)
            return FC_END;
        s = fc_reader_range(&r, b, e, FC_SYNC_CHECKSUM);
        q = fc_reader_offset(&r);
        if (s != FC_OK)
            return FC_END; /* not placeable: that split reports it itself */
        if (q >= e && p >= e && opt->part == FC_PART_SPLIT && k + 1 < opt->part_b) {
            b = e; /* it owns no record, rightly: the one after it */
            k++;
            continue;
        }
        if (q >= e && p >= e)
            return FC_END;
        break;
    }
    if (q == p)
        return FC_END;
    if (q > p) {
        /* the record at p: damaged (its own read's error), or skipped */
        fc_record rec;
        (void)fc_reader_init_mem(&r, in->data, in->size, &ro, NULL);
        /* its number, when this split's count is from the file's start */
        (void)fc_reader_seek(&r, p, fc_reader_index_known(&in->reader) || in->part_start == 0
                                        ? fc_reader_count(&in->reader)
                                        : FC_NO_INDEX);
        s = fc_reader_next(&r, &rec);
        if (s != FC_OK && s != FC_END) {
            fc_msg m;
            in->err = *fc_reader_error(&r);
            m = fc_error_more(&in->err);
            fc_msg_str(&m, "; the checksum sync of the next split (from offset ");
            fc_msg_u64(&m, b);
            fc_msg_str(&m, ") passes over it to offset ");
            fc_msg_u64(&m, q);
            fc_msg_str(&m, ", so no split would read it (--sync=walk or an index reads it in "
                           "order)");
            return s;
        }
    }
    {
        fc_msg m = fc_error_begin(&in->err, FC_ERR_CORRUPT, FC_NO_INDEX, p);
        fc_msg_str(&m, "the checksum sync of the next split (from offset ");
        fc_msg_u64(&m, b);
        fc_msg_str(&m, ") lands at offset ");
        fc_msg_u64(&m, q);
        fc_msg_str(&m, ", but the records of this split go on at offset ");
        fc_msg_u64(&m, p);
        fc_msg_str(&m, q > p ? ": the records between would be read by no split (the chain of "
                               "records after them breaks within 1 MiB)"
                             : ": inside this split's last record, whose bytes look like "
                               "records (a TFRecord stream stored in a record)");
        fc_msg_str(&m, "; --sync=walk or an index places splits exactly");
    }
    return FC_ERR_CORRUPT;
}

fc_status fc_input_next(fc_input *in, fc_record *rec)
{
    for (;;) {
        fc_status s;
        size_t need;
        unsigned char *bigger;
        uint64_t gone;
        s = fc_reader_next(&in->reader, rec);
        if (in->ahead != NULL && s != FC_OK && s != FC_ERR_BUFFER &&
            !(s == FC_END && fc_ahead_ended(in->ahead))) {
            if (in->gathered > 0)
                return FC_ERR_BUFFER; /* the gather ends first: its records are in
                                         the buffer the second read takes */
            s = ahead_fallback(in);
            if (s != FC_OK)
                return s;
            continue;
        }
        if (in->ahead != NULL && s == FC_OK)
            in->ahead_records++;
        if (s == FC_OK ? fc_input_map_changed(in->guard, &gone)
                       : fc_input_map_shrank(in->guard, &gone))
            /* the file shrank: what the read made of the zeros is not the file's */
            return fc_input_changed_error(&in->err, in->path, (uint64_t)in->map.size, gone);
        /* the limit holds for every record, whether it came from a mapped
         * file, a stream or a decompressor, and whether or not it fitted in
         * the buffer already there */
        if (s == FC_OK && rec->length > in->max_record_size)
            return too_large(in, rec->index, rec->offset, rec->length);
        if (s == FC_OK && in->map.data != NULL && in->data == in->map.data)
            fc_input_map_release(&in->map, &in->released, fc_reader_raw_offset(&in->reader));
        if (s == FC_END && in->walked && fc_reader_offset(&in->reader) >= in->part_end) {
            /* the part read to its end over intact records: the next part
             * of this file walks on from here */
            in->walked = 0;
            fc_walks_note(&in->file_id, fc_reader_offset(&in->reader),
                          fc_reader_count(&in->reader));
        }
        if (s == FC_END && in->junction && fc_reader_offset(&in->reader) >= in->part_end &&
            in->part_start < in->part_end) {
            /* the split ends at its limit: where the next one starts (a
             * split that owns no record knows no chain: the one before it
             * checks past it) */
            in->junction = 0;
            s = checksum_junction(in, &in->part_opt);
            if (s != FC_END)
                return s;
        }
        if (s != FC_ERR_BUFFER) {
            if (s != FC_OK && s != FC_END) {
                in->err = *fc_reader_error(&in->reader);
                if (s == FC_ERR_INDEX)
                    index_note(in);
                else if (in->index != NULL && in->err.offset == in->part_start &&
                           s == FC_ERR_CORRUPT) {
                    fc_msg m = fc_error_more(&in->err);
                    fc_msg_str(&m, "; the index ");
                    fc_msg_str(&m, in->index_path);
                    fc_msg_str(&m, " put the read there: is it this file's index? "
                                   "(featc index --check)");
                }
            }
            return s;
        }
        if (in->gathered > 0)
            return FC_ERR_BUFFER; /* fc_input_gather: it ends the gather */
        need = fc_reader_needed(&in->reader);
        if (need < FC_RECORD_OVERHEAD || need - FC_RECORD_OVERHEAD > in->max_record_size) {
            const fc_error *e = fc_reader_error(&in->reader);
            return too_large(in, e->record, e->offset, need - FC_RECORD_OVERHEAD);
        }
        bigger = (unsigned char *)malloc(need);
        if (bigger == NULL)
            return open_error(in, FC_ERR_NO_MEMORY, "out of memory for a large record", 0);
        if (fc_reader_set_buffer(&in->reader, bigger, need) != FC_OK) {
            free(bigger);
            return open_error(in, FC_ERR_ARG, "cannot switch the reader to a larger buffer", 0);
        }
        free(in->buf);
        in->buf = bigger;
        in->cap = need;
    }
}

fc_status fc_input_gather(fc_input *in, fc_record *recs, size_t max, size_t *n)
{
    const unsigned char *base, *now;
    fc_status s = FC_OK;
    size_t k;
    *n = 0;
    fc_reader_keep(&in->reader);
    base = fc_reader_kept(&in->reader);
    in->gathered = 0;
    in->gathering = 1;
    while (*n < max) {
        s = fc_input_next(in, &recs[*n]);
        if (s == FC_ERR_BUFFER && *n > 0) {
            s = FC_OK; /* the next record does not fit beside these: a short gather */
            break;
        }
        if (s != FC_OK)
            break;
        now = fc_reader_kept(&in->reader);
        if (now != base && base != NULL && now != NULL) {
            /* the buffer made room: the kept records moved to its front */
            for (k = 0; k < *n; k++)
                recs[k].data = now + (recs[k].data - base);
            base = now;
        }
        in->gathered = ++*n;
    }
    in->gathered = 0;
    in->gathering = 0;
    fc_reader_keep_end(&in->reader);
    return s;
}

int fc_input_can_inflate_ahead(void)
{
    return fc_ahead_available();
}

fc_compression fc_input_compression(const fc_input *in)
{
    return in->ahead != NULL ? in->compression : fc_reader_compression(&in->reader);
}

void fc_input_close(fc_input *in)
{
    fc_ahead_stop(in->ahead);
    in->ahead = NULL;
    free(in->members);
    in->members = NULL;
    free(in->index);
    free(in->index_path);
    in->index = NULL;
    in->index_path = NULL;
    fc_input_unmap(&in->map, in->guard);
    in->guard = NULL;
    if (in->own_fd && in->fd >= 0)
        close(in->fd);
    in->fd = -1;
    free(in->buf);
    free(in->work);
    in->buf = NULL;
    in->work = NULL;
}

int fc_input_parse_compression(const char *s, fc_compression *out)
{
    return fc_compression_parse(s, out) == FC_OK ? 0 : -1;
}

int fc_input_parse_crc(const char *s, fc_crc_policy *out)
{
    if (strcmp(s, "verify") == 0)
        *out = FC_CRC_VERIFY;
    else if (strcmp(s, "skip") == 0)
        *out = FC_CRC_SKIP_CORRUPT;
    else if (strcmp(s, "none") == 0)
        *out = FC_CRC_NONE;
    else
        return -1;
    return 0;
}

int fc_input_parse_sync(const char *s, fc_sync_method *out)
{
    if (strcmp(s, "walk") == 0)
        *out = FC_SYNC_WALK;
    else if (strcmp(s, "checksum") == 0)
        *out = FC_SYNC_CHECKSUM;
    else
        return -1;
    return 0;
}

int fc_input_parse_size(const char *s, size_t *out)
{
    char *end;
    unsigned long long v;
    unsigned long long mult = 1;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno != 0)
        return -1;
    if (*end == 'K' || *end == 'k')
        mult = 1024ull, end++;
    else if (*end == 'M' || *end == 'm')
        mult = 1024ull * 1024ull, end++;
    else if (*end == 'G' || *end == 'g')
        mult = 1024ull * 1024ull * 1024ull, end++;
    if (*end != '\0' || v > (unsigned long long)SIZE_MAX / mult)
        return -1;
    *out = (size_t)(v * mult);
    return 0;
}

int fc_input_parse_split(const char *s, uint64_t *i, uint64_t *n)
{
    char *end;
    unsigned long long a, b;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    a = strtoull(s, &end, 10);
    if (errno != 0 || *end != '/' || end[1] < '0' || end[1] > '9')
        return -1;
    b = strtoull(end + 1, &end, 10);
    if (errno != 0 || *end != '\0' || b == 0 || a >= b)
        return -1;
    *i = a;
    *n = b;
    return 0;
}

/* One end of a span: empty gives dflt. */
static int parse_end(const char *s, size_t len, int with_suffix, uint64_t dflt, uint64_t *out)
{
    char tmp[32];
    size_t v;
    if (len == 0) {
        *out = dflt;
        return 0;
    }
    if (len >= sizeof tmp)
        return -1;
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    if (with_suffix) {
        if (fc_input_parse_size(tmp, &v) != 0)
            return -1;
        *out = v;
        return 0;
    } else {
        char *end;
        unsigned long long x;
        if (tmp[0] < '0' || tmp[0] > '9')
            return -1;
        errno = 0;
        x = strtoull(tmp, &end, 10);
        if (errno != 0 || *end != '\0')
            return -1;
        *out = x;
        return 0;
    }
}

int fc_input_parse_span(const char *s, int with_suffix, uint64_t *a, uint64_t *b)
{
    const char *colon = strchr(s, ':');
    if (colon == NULL || strchr(colon + 1, ':') != NULL)
        return -1;
    if (parse_end(s, (size_t)(colon - s), with_suffix, 0, a) != 0 ||
        parse_end(colon + 1, strlen(colon + 1), with_suffix, UINT64_MAX, b) != 0 || *a > *b)
        return -1;
    return 0;
}
