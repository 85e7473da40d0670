/* libFuzzer harness for random access: sync, skip_to and ranges.
 *
 * The first byte chooses the number of splits (1..8) and the CRC policy;
 * the next two an offset for a bare fc_reader_sync; the rest is the file.
 * Properties:
 *   - a bare sync lands on an intact record inside the input, or finds none;
 *   - the file cut into k ranges and read in order, each range positioned
 *     by the walk, or by the checksum sync checked at the junction (where
 *     the chain of the ranges before it ended) and read from there, gives
 *     exactly the sequential read's records and its ending: the same status
 *     at the same offset with the same message.
 *   - under FC_CRC_SKIP_CORRUPT, each range read alone by the walk gives
 *     the sequential read's records in its range and, when the sequential
 *     read fails before the range ends, the same error.
 * So no split ever returns a record that the sequential read would not. */
#include <featc/fc.h>

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { MAX_RECORDS = 1 << 16 };

typedef struct outcome {
    uint64_t offset[MAX_RECORDS];
    size_t length[MAX_RECORDS];
    size_t n;
    fc_status status;
    fc_error err;
} outcome;

static outcome seq, split;

static void add(outcome *o, const fc_record *rec)
{
    if (o->n == MAX_RECORDS)
        abort(); /* a 16-byte record per slot: inputs this large are not made */
    o->offset[o->n] = rec->offset;
    o->length[o->n++] = rec->length;
}

static void init(fc_reader *r, const uint8_t *d, size_t n, fc_crc_policy p)
{
    fc_reader_options o;
    memset(&o, 0, sizeof o);
    o.crc_policy = p;
    if (fc_reader_init_mem(r, d, n, &o, NULL) != FC_OK)
        abort();
}

/* Reads r to its end; returns 1 at FC_END, else 0 with the error kept. */
static int drain(fc_reader *r, outcome *o, uint64_t *count)
{
    fc_record rec;
    fc_status s;
    uint64_t base = *count, returned = 0;
    while ((s = fc_reader_next(r, &rec)) == FC_OK) {
        if (rec.data < r->buf || rec.length > (size_t)(r->end - (size_t)(rec.data - r->buf)))
            abort(); /* outside the input */
        if (fc_reader_index_known(r) && rec.index != base + returned + fc_reader_skipped(r))
            abort();
        add(o, &rec);
        returned++;
    }
    *count = base + returned + fc_reader_skipped(r);
    if (s == FC_END)
        return 1;
    o->status = s;
    o->err = *fc_reader_error(r);
    if (o->err.message[0] == '\0')
        abort();
    return 0;
}

static void same_or_abort(void)
{
    size_t i;
    if (split.n != seq.n || split.status != seq.status)
        abort();
    for (i = 0; i < seq.n; i++)
        if (split.offset[i] != seq.offset[i] || split.length[i] != seq.length[i])
            abort();
    if (seq.status != FC_END &&
        (split.err.offset != seq.err.offset || strcmp(split.err.message, seq.err.message) != 0))
        abort();
}

static void read_splits(const uint8_t *d, size_t n, size_t k, fc_crc_policy p, int checksum)
{
    uint64_t expected = 0, count = 0;
    size_t i;
    split.n = 0;
    split.status = FC_END;
    for (i = 0; i < k; i++) {
        uint64_t a = (uint64_t)n * i / k, b = (uint64_t)n * (i + 1) / k;
        uint64_t before = count;
        fc_reader r;
        init(&r, d, n, p);
        if (fc_reader_range(&r, a, b, checksum ? FC_SYNC_CHECKSUM : FC_SYNC_WALK) != FC_OK)
            abort(); /* the policy allows both methods */
        if (checksum) {
            if (expected >= b)
                continue;
            if (fc_reader_seek(&r, expected, count) != FC_OK)
                abort();
        }
        if (!drain(&r, &split, &count))
            return;
        if (count > before || fc_reader_offset(&r) > expected)
            expected = fc_reader_offset(&r);
    }
}

/* One range alone by the walk, under FC_CRC_SKIP_CORRUPT: the records of
 * the sequential read (same policy) that start in [a, b), and its error if
 * that comes before b: a damaged header before the range stops the walk,
 * and the range reports it as the sequential read does. */
static void standalone_walk(const uint8_t *d, size_t n, size_t k)
{
    size_t i, j;
    for (i = 0; i < k; i++) {
        uint64_t a = (uint64_t)n * i / k, b = (uint64_t)n * (i + 1) / k, count;
        fc_reader r;
        int fails;
        split.n = 0;
        split.status = FC_END;
        init(&r, d, n, FC_CRC_SKIP_CORRUPT);
        if (fc_reader_range(&r, a, b, FC_SYNC_WALK) != FC_OK)
            abort();
        count = fc_reader_count(&r); /* the walk knows the index */
        (void)drain(&r, &split, &count);
        for (j = 0; j < seq.n && seq.offset[j] < a; j++) {
        }
        fails = seq.status != FC_END && seq.err.offset < b;
        if (split.status != (fails ? seq.status : FC_END))
            abort();
        if (fails && strcmp(split.err.message, seq.err.message) != 0)
            abort();
        {
            size_t m = 0;
            for (; j + m < seq.n && seq.offset[j + m] < b; m++)
                if (m >= split.n || split.offset[m] != seq.offset[j + m] ||
                    split.length[m] != seq.length[j + m])
                    abort();
            if (m != split.n)
                abort();
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fc_reader r;
    fc_crc_policy policy;
    size_t k;
    uint64_t count = 0, at;
    if (size < 3)
        return 0;
    k = 1u + (data[0] & 7u);
    policy = (data[0] & 0x80) ? FC_CRC_SKIP_CORRUPT : FC_CRC_VERIFY;
    at = (uint64_t)data[1] | (uint64_t)data[2] << 8;
    data += 3;
    size -= 3;

    /* a bare sync */
    init(&r, data, size, policy);
    if (fc_reader_sync(&r, at) == FC_OK) {
        uint64_t q = fc_reader_offset(&r);
        uint64_t length;
        if (q < at || q + FC_RECORD_OVERHEAD > size)
            abort();
        length = (uint64_t)data[q] | (uint64_t)data[q + 1] << 8 | (uint64_t)data[q + 2] << 16 |
                 (uint64_t)data[q + 3] << 24 | (uint64_t)data[q + 4] << 32 |
                 (uint64_t)data[q + 5] << 40 | (uint64_t)data[q + 6] << 48 |
                 (uint64_t)data[q + 7] << 56;
        if (length > size - q - FC_RECORD_OVERHEAD)
            abort();
    }

    seq.n = 0;
    seq.status = FC_END;
    init(&r, data, size, policy);
    drain(&r, &seq, &count);
    read_splits(data, size, k, policy, 0);
    same_or_abort();
    read_splits(data, size, k, policy, 1);
    same_or_abort();
    if (policy == FC_CRC_SKIP_CORRUPT)
        standalone_walk(data, size, k);
    return 0;
}
