/* What a reader makes of a file, for comparing the push reader with
 * fc_reader: records (their index, offset, length and a CRC of their
 * bytes, folded into one digest), the final status, and the error's
 * message, offset and record.  Shared by test_stream.c, fuzz_stream.c and
 * the Cortex-M4 check (tests/embedded/check.c). */
#ifndef FEATC_TEST_STREAM_CHECK_H
#define FEATC_TEST_STREAM_CHECK_H

#include <featc/fc.h>

#include <string.h>

typedef struct {
    int status;
    uint64_t records, digest, offset, record;
    char message[sizeof ((fc_error *)0)->message];
} sc_outcome;

static inline void sc_take(sc_outcome *o, const fc_record *rec)
{
    o->records++;
    o->digest = o->digest * 1000003u + rec->index * 31u + rec->offset * 7u + rec->length +
                fc_crc32c(0, rec->data, rec->length);
}

static inline void sc_end(sc_outcome *o, int status, const fc_error *e)
{
    o->status = status;
    if (status != FC_END && e != NULL) {
        memcpy(o->message, e->message, sizeof o->message);
        o->offset = e->offset;
        o->record = e->record;
    }
}

static inline fc_reader_options sc_options(fc_compression c, void *buf, size_t buf_size,
                                           void *work, size_t work_size)
{
    fc_reader_options opt;
    memset(&opt, 0, sizeof opt);
    opt.compression = c;
    opt.buffer = buf;
    opt.buffer_size = buf_size;
    opt.work = work;
    opt.work_size = work_size;
    return opt;
}

/* fc_reader over the bytes in memory (zlib when compressed). */
static inline void sc_read_mem(const unsigned char *data, size_t len, fc_compression c,
                               void *buf, size_t buf_size, void *work, size_t work_size,
                               sc_outcome *o)
{
    fc_reader_options opt = sc_options(c, buf, buf_size, work, work_size);
    fc_reader r;
    fc_record rec;
    int st;
    memset(o, 0, sizeof *o);
    st = fc_reader_init_mem(&r, data, len, &opt, NULL);
    if (st != FC_OK) {
        sc_end(o, st, fc_reader_error(&r));
        return;
    }
    while ((st = fc_reader_next(&r, &rec)) == FC_OK)
        sc_take(o, &rec);
    sc_end(o, st, fc_reader_error(&r));
}

/* The push reader over the same bytes, pushed in pieces whose sizes
 * next_size(state) gives (each at least 1); FC_ERR_STATE and the like
 * count as the outcome too. */
static inline void sc_read_pushed(const unsigned char *data, size_t len, fc_compression c,
                                  void *buf, size_t buf_size, void *work, size_t work_size,
                                  size_t (*next_size)(void *), void *state, sc_outcome *o)
{
    fc_reader_options opt = sc_options(c, buf, buf_size, work, work_size);
    fc_stream s;
    fc_record rec;
    size_t at = 0;
    int st;
    memset(o, 0, sizeof *o);
    st = fc_stream_init(&s, &opt, NULL);
    if (st != FC_OK) {
        sc_end(o, st, fc_stream_error(&s));
        return;
    }
    for (;;) {
        while ((st = fc_stream_next(&s, &rec)) == FC_OK)
            sc_take(o, &rec);
        if (st != FC_AGAIN)
            break;
        if (at == len) {
            fc_stream_finish(&s);
            continue;
        }
        {
            size_t n = next_size(state);
            if (n > len - at)
                n = len - at;
            st = fc_stream_push(&s, data + at, n);
            if (st != FC_OK)
                break;
            at += n;
        }
    }
    sc_end(o, st, fc_stream_error(&s));
}

static inline int sc_same(const sc_outcome *a, const sc_outcome *b)
{
    size_t i;
    for (i = 0; i < sizeof a->message; i++) { /* (no strcmp: the M4 build has mem* only) */
        if (a->message[i] != b->message[i])
            return 0;
        if (a->message[i] == '\0')
            break;
    }
    return a->status == b->status && a->records == b->records && a->digest == b->digest &&
           a->offset == b->offset && a->record == b->record;
}

#endif /* FEATC_TEST_STREAM_CHECK_H */
