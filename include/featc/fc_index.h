/* Index files: the record offsets of a TFRecord file, for random access and
 * exact splits.
 *
 * The format is the one NVIDIA DALI's tfrecord2idx and the Python
 * `tfrecord` package write and read: one line per record, in file order,
 *     <offset> <size>\n
 * both decimal, offset the byte offset of the record's header, size the
 * whole record with its 16 framing bytes.  An index describes an
 * uncompressed file.
 *
 * Memory: nothing here allocates; the caller gives the entry array (count
 * the entries first with entries == NULL). */
#ifndef FEATC_FC_INDEX_H
#define FEATC_FC_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "fc_base.h"
#include "fc_record.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct fc_index_entry {
    uint64_t offset; /* of the record's header */
    uint64_t size;   /* header, data and footer: the data length + 16 */
} fc_index_entry;

/* Parses index text.  Lines are "<offset> <size>", the two numbers
 * separated by spaces or tabs; a line may end in CR LF, the last line may
 * lack its newline, and empty lines are ignored.  Every size is at least
 * 16, the first record is at offset 0, and every other starts where the one
 * before it ends (an index lists every record of its file).
 * Stores up to cap entries (entries may be NULL with cap 0) and sets *count
 * to the number in the text: FC_OK, FC_ERR_BUFFER when cap is too small,
 * or FC_ERR_INDEX naming the line and column of what is wrong (err->offset
 * is its byte offset in the text). */
fc_status fc_index_parse(const char *text, size_t len, fc_index_entry *entries, size_t cap,
                         size_t *count, fc_error *err);

/* Writes the line of one entry ("<offset> <size>\n", no NUL) into buf;
 * returns its length, or 0 when cap is too small.  FC_INDEX_LINE_MAX
 * always suffices. */
#define FC_INDEX_LINE_MAX 42u
size_t fc_index_line(char *buf, size_t cap, const fc_index_entry *e);

/* The first entry whose record starts at offset or later (n if none). */
size_t fc_index_lower_bound(const fc_index_entry *entries, size_t n, uint64_t offset);

/* A new reader on the split [begin, end) of the file the index describes:
 * exact, with record indices from the file's start.  Records after the
 * index's last entry are found by reading on from it.
 *
 * The entries are claims, checked as the read goes (the reader keeps a
 * pointer to them: keep them valid while it reads): a record whose offset
 * or size differs from its entry, or a file that ends before an entry's
 * record, fails the read there with FC_ERR_INDEX and index --check's
 * words ("index entry I says offset O size S; record I of the file is at
 * offset P with size Q").  A record whose header is damaged is reported as
 * a sequential read reports it. */
fc_status fc_reader_range_index(fc_reader *r, const fc_index_entry *entries, size_t n,
                                uint64_t begin, uint64_t end);

/* A new reader on records [first, last) by index (last may be n, which
 * stops where the index's last record ends, or UINT64_MAX for every record
 * from first to the end of the file; between the two, FC_ERR_INDEX), each
 * checked against its entry as fc_reader_range_index does. */
fc_status fc_reader_records(fc_reader *r, const fc_index_entry *entries, size_t n,
                            uint64_t first, uint64_t last);

/* Member indexes of GZIP files: one line per member that starts at a
 * record,
 *     <offset> <stream_offset> <first_record>\n
 * (fc_gzip_member's fields, decimal), in file order; what `featc index`
 * writes to FILE.members for a GZIP file.  Parsed with the rules of
 * fc_index_parse (offsets strictly increasing, in both streams). */
fc_status fc_members_parse(const char *text, size_t len, fc_gzip_member *members, size_t cap,
                           size_t *count, fc_error *err);
#define FC_MEMBERS_LINE_MAX 63u
size_t fc_members_line(char *buf, size_t cap, const fc_gzip_member *m);

/* Splits of a seekable GZIP file: a split [begin, end) of the compressed
 * bytes owns the members that start in it (those that start inside a
 * record do not count), and so the records in them.  members[0..n) in
 * file order, as fc_reader_log_members or fc_writer_member give them.
 * A GZIP reader (memory or file descriptor); exact, indices from the
 * file's start.
 *
 * The list is a claim, checked where the read crosses it (keep it valid
 * while the reader reads): every member it names after the split's first,
 * up to the one that ends the split, must start at its compressed offset
 * with its stream offset, and the record there must be its first_record;
 * else the read fails with FC_ERR_INDEX when it reaches that stream offset,
 * naming the entry.  A list naming a member past the end of a memory
 * reader's bytes fails here. */
fc_status fc_reader_range_members(fc_reader *r, const fc_gzip_member *members, size_t n,
                                  uint64_t begin, uint64_t end);

/* Reads the reader's stream from where it is and compares it with the
 * index from entry `from`: FC_OK when every record is where its entry says,
 * with the size it says, and no record is left over; FC_ERR_INDEX naming
 * the first difference (err->record is the entry's index); or the reader's
 * error when the file itself is damaged. */
fc_status fc_index_verify(fc_reader *r, const fc_index_entry *entries, size_t n, fc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_INDEX_H */
