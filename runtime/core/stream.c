/* The push reader (fc_record.h): an fc_reader whose pull source is the
 * piece the caller pushed last.  When the piece is used up the source says
 * FC_AGAIN, which the reader returns without failing and resumes from on
 * the next call, so records, errors and offsets are the reader's own. */
#include "frame.h"

static fc_status stream_pull(void *ctx, void *buf, size_t n, size_t *got, fc_error *err)
{
    fc_stream *s = (fc_stream *)ctx;
    size_t k = s->in_len < n ? s->in_len : n;
    (void)err;
    if (k == 0 && !s->finished)
        return FC_AGAIN;
    if (k > 0) { /* (in may be NULL for an empty piece) */
        memcpy(buf, s->in, k);
        s->in += k;
        s->in_len -= k;
    }
    *got = k; /* (0 after fc_stream_finish: the end of the input) */
    return FC_OK;
}

fc_status fc_stream_init(fc_stream *s, const fc_reader_options *opt, fc_error *err)
{
    fc_reader_options o;
    if (s == NULL)
        return FC_ERR_ARG;
    memset(s, 0, sizeof *s);
    if (opt != NULL)
        o = *opt;
    else
        memset(&o, 0, sizeof o);
    /* zlib alone: a work area with room for ISA-L would let the reader
     * take it, and ISA-L's recovery rereads a damaged member from the
     * source, which here is gone */
    if (o.work != NULL && o.work_size > FC_STREAM_WORK_SIZE)
        o.work_size = FC_STREAM_WORK_SIZE;
    return fc_reader_init_pull(&s->reader, stream_pull, s, &o, err);
}

fc_status fc_stream_push(fc_stream *s, const void *bytes, size_t n)
{
    if (s == NULL || (bytes == NULL && n > 0))
        return FC_ERR_ARG;
    if (s->in_len > 0 || s->finished)
        return FC_ERR_STATE;
    s->in = (const unsigned char *)bytes;
    s->in_len = n;
    return FC_OK;
}

fc_status fc_stream_finish(fc_stream *s)
{
    if (s == NULL)
        return FC_ERR_ARG;
    s->finished = 1;
    return FC_OK;
}

fc_status fc_stream_next(fc_stream *s, fc_record *rec)
{
    if (s == NULL)
        return FC_ERR_ARG;
    return fc_reader_next(&s->reader, rec);
}

const fc_error *fc_stream_error(const fc_stream *s)
{
    return fc_reader_error(&s->reader);
}

uint64_t fc_stream_taken(const fc_stream *s)
{
    return fc_reader_raw_offset(&s->reader);
}

uint64_t fc_stream_offset(const fc_stream *s)
{
    return fc_reader_offset(&s->reader);
}
