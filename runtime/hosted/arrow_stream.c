/* An ArrowArrayStream over TFRecord files (fc_arrow.h): each get_next
 * reads up to batch_size records with fc_input (the files in turn, each
 * with the options' part, compression and CRC policy), copies them, parses
 * them as a batch into a new block, and exports it (fc_arrow_export), which
 * frees the block when the consumer releases the batch. */
#include "featc/fc_arrow.h"
#include "featc/fc_input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct stream_priv {
    const fc_message_desc *md;
    const fc_seq_desc *sd;
    unsigned flags;
    char **paths;
    size_t npaths, next;   /* next: the file to open */
    int open;
    fc_input in;
    fc_input_options opt;
    size_t bsize;
    fc_column *cols;
    size_t ncols;
    void *scratch;
    unsigned char *data;   /* the batch's records, copied */
    size_t cap;
    fc_bytes *views;
    size_t *at;
    uint64_t *index, *offset;
    size_t *file;          /* which path each record came from */
    fc_arrow_stream_hooks hooks;
    int done;
    int pending;           /* an input error met after a batch's records: the next call's */
    char error[FC_ERROR_MSG_SIZE + 1100];
} stream_priv;

static void set_error(stream_priv *p, const char *path, uint64_t record, uint64_t offset,
                      const char *message)
{
    if (path != NULL && record != FC_NO_INDEX)
        snprintf(p->error, sizeof p->error, "record %llu (offset %llu of %s): %s",
                 (unsigned long long)record, (unsigned long long)offset, path, message);
    else if (path != NULL)
        snprintf(p->error, sizeof p->error, "%s: %s", path, message);
    else
        snprintf(p->error, sizeof p->error, "%s", message);
}

static int stream_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    stream_priv *p = (stream_priv *)s->private_data;
    fc_error err;
    fc_error_clear(&err);
    if (fc_arrow_schema(p->md, p->sd, p->flags, out, &err) != FC_OK) {
        set_error(p, NULL, FC_NO_INDEX, FC_NO_INDEX, err.message);
        return err.status == FC_ERR_NO_MEMORY ? ENOMEM : EINVAL;
    }
    return 0;
}

/* Room for k more bytes of records. */
static int reserve(stream_priv *p, size_t used, size_t k)
{
    size_t want;
    unsigned char *d;
    if (k <= p->cap - used)
        return 0;
    want = p->cap * 2 > used + k ? p->cap * 2 : used + k;
    d = (unsigned char *)realloc(p->data, want > 0 ? want : 1);
    if (d == NULL)
        return -1;
    p->data = d;
    p->cap = want;
    return 0;
}

/* Up to bsize records into the batch buffers: their count, or -1 with the
 * error set.  An input error after some records ends the batch there and
 * is the next call's (pending), as read() hands out the records before a
 * damaged file's error first; the read goes on with the next file. */
static long gather(stream_priv *p)
{
    size_t n = 0, used = 0;
    while (n < p->bsize) {
        fc_record rec;
        fc_status st;
        if (!p->open) {
            if (p->next >= p->npaths)
                break;
            if (fc_input_open(&p->in, p->paths[p->next], &p->opt) != FC_OK) {
                set_error(p, p->paths[p->next], FC_NO_INDEX, FC_NO_INDEX, p->in.err.message);
                fc_input_close(&p->in);
                p->next++;
                if (n > 0) {
                    p->pending = 1;
                    break;
                }
                return -1;
            }
            p->open = 1;
            p->next++;
        }
        st = fc_input_next(&p->in, &rec);
        if (st == FC_END) {
            if (p->hooks.file_done != NULL)
                p->hooks.file_done(p->hooks.ctx, p->paths[p->next - 1],
                                   fc_reader_raw_offset(&p->in.reader));
            fc_input_close(&p->in);
            p->open = 0;
            continue;
        }
        if (st != FC_OK) {
            set_error(p, p->paths[p->next - 1], FC_NO_INDEX, FC_NO_INDEX, p->in.err.message);
            fc_input_close(&p->in);
            p->open = 0;
            if (n > 0) {
                p->pending = 1;
                break;
            }
            return -1;
        }
        if (p->hooks.record != NULL)
            p->hooks.record(p->hooks.ctx, fc_reader_raw_offset(&p->in.reader));
        if (reserve(p, used, rec.length) != 0) {
            set_error(p, p->paths[p->next - 1], rec.index, rec.offset,
                      "out of memory for the records of a batch");
            return -1;
        }
        if (rec.length > 0)
            memcpy(p->data + used, rec.data, rec.length);
        p->at[n] = used;
        p->views[n].size = rec.length;
        p->index[n] = rec.index;
        p->offset[n] = rec.offset;
        p->file[n] = p->next - 1;
        used += rec.length;
        n++;
    }
    for (used = 0; used < n; used++)
        p->views[used].data = p->data + p->at[used];
    return (long)n;
}

static void free_block(void *b)
{
    free(b);
}

/* The batch of n records through the hooks' parse: each record parsed into
 * the scratch struct, then appended column by column. */
static int parse_hooked(stream_priv *p, size_t n, fc_error *err)
{
    size_t i, j;
    int rc = p->md != NULL ? fc_batch_begin(p->md, p->cols, n, err)
                           : fc_batch_begin_seq(p->sd, p->cols, n, err);
    for (i = 0; i < n && rc == FC_OK; i++) {
        rc = p->hooks.parse(p->hooks.ctx, p->scratch, p->views[i].data, p->views[i].size, err);
        if (rc != FC_OK) {
            err->record = i;
            return rc;
        }
        for (j = 0; j < p->ncols && rc == FC_OK; j++)
            rc = p->md != NULL ? fc_batch_append_field(p->md, j, p->cols, p->scratch, i, err)
                               : fc_batch_append_seq(p->sd, j, p->cols, p->scratch, i, err);
        if (rc != FC_OK)
            err->record = i;
    }
    if (rc == FC_OK)
        rc = p->md != NULL ? fc_batch_end(p->md, p->cols, n, err)
                           : fc_batch_end_seq(p->sd, p->cols, n, err);
    return rc;
}

static int stream_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    stream_priv *p = (stream_priv *)s->private_data;
    long got;
    size_t n, need;
    void *block = NULL;
    fc_error err;
    int rc;
    memset(out, 0, sizeof *out); /* (release NULL: the end) */
    if (p->pending) {
        p->pending = 0;
        return EIO;
    }
    if (p->done)
        return 0;
    got = gather(p);
    if (got < 0)
        return EIO;
    n = (size_t)got;
    if (n == 0) {
        p->done = 1;
        return 0;
    }
    need = p->md != NULL ? fc_batch_bind(p->md, p->cols, n, FC_BATCH_RAGGED, NULL, 0)
                         : fc_batch_bind_seq(p->sd, p->cols, n, FC_BATCH_RAGGED, NULL, 0);
    if (need == 0 || posix_memalign(&block, FC_ARROW_ALIGN, need) != 0) {
        set_error(p, NULL, FC_NO_INDEX, FC_NO_INDEX, "out of memory for a batch");
        return ENOMEM;
    }
    if (p->md != NULL)
        fc_batch_bind(p->md, p->cols, n, FC_BATCH_RAGGED, block, need);
    else
        fc_batch_bind_seq(p->sd, p->cols, n, FC_BATCH_RAGGED, block, need);
    fc_error_clear(&err);
    if (p->hooks.parse != NULL)
        rc = parse_hooked(p, n, &err);
    else
        rc = p->md != NULL ? fc_batch_parse(p->md, p->cols, p->scratch, p->views, n, &err)
                           : fc_batch_parse_seq(p->sd, p->cols, p->scratch, p->views, n, &err);
    if (rc != FC_OK) {
        size_t r = err.record < n ? (size_t)err.record : 0;
        set_error(p, p->paths[p->file[r]], err.record < n ? p->index[r] : FC_NO_INDEX,
                  p->offset[r], err.message);
        free(block);
        return EINVAL;
    }
    rc = fc_arrow_export(p->md, p->sd, p->flags, p->cols, n, block, free_block, out, NULL, &err);
    if (rc != FC_OK) {
        set_error(p, NULL, FC_NO_INDEX, FC_NO_INDEX, err.message);
        free(block);
        return rc == FC_ERR_NO_MEMORY ? ENOMEM : EINVAL;
    }
    return 0;
}

static const char *stream_error(struct ArrowArrayStream *s)
{
    stream_priv *p = (stream_priv *)s->private_data;
    return p->error[0] != '\0' ? p->error : NULL;
}

static void stream_release(struct ArrowArrayStream *s)
{
    stream_priv *p = (stream_priv *)s->private_data;
    size_t i;
    if (p != NULL) {
        if (p->open)
            fc_input_close(&p->in);
        for (i = 0; i < p->npaths; i++)
            free(p->paths[i]);
        free(p->paths);
        free(p->cols);
        free(p->scratch);
        free(p->data);
        free(p->views);
        free(p->at);
        free(p->index);
        free(p->offset);
        free(p->file);
        free(p);
    }
    s->release = NULL;
}

int fc_arrow_stream(const fc_message_desc *md, const fc_seq_desc *sd, unsigned flags,
                    const char *const *paths, size_t npaths, size_t batch_size,
                    const fc_input_options *opt, struct ArrowArrayStream *out, fc_error *err)
{
    return fc_arrow_stream_hooked(md, sd, flags, paths, npaths, batch_size, opt, NULL, out, err);
}

int fc_arrow_stream_hooked(const fc_message_desc *md, const fc_seq_desc *sd, unsigned flags,
                           const char *const *paths, size_t npaths, size_t batch_size,
                           const fc_input_options *opt, const fc_arrow_stream_hooks *hooks,
                           struct ArrowArrayStream *out, fc_error *err)
{
    stream_priv *p;
    size_t i;
    if ((md == NULL) == (sd == NULL) || out == NULL || (paths == NULL && npaths > 0) ||
        batch_size == 0 || opt == NULL ||
        (hooks == NULL && (md != NULL ? md->parse == NULL : sd->parse == NULL)))
        return FC_ERR_ARG;
    memset(out, 0, sizeof *out);
    p = (stream_priv *)calloc(1, sizeof *p);
    if (p == NULL)
        goto oom;
    p->md = md;
    p->sd = sd;
    p->opt = *opt;
    p->bsize = batch_size;
    p->flags = flags;
    if (hooks != NULL)
        p->hooks = *hooks;
    p->ncols = md != NULL ? md->nfields : sd->ncontext + sd->nlists;
    p->paths = (char **)calloc(npaths + 1, sizeof *p->paths);
    p->cols = (fc_column *)calloc(p->ncols + 1, sizeof *p->cols);
    p->scratch = malloc(md != NULL ? md->size : sd->size);
    p->views = (fc_bytes *)calloc(batch_size, sizeof *p->views);
    p->at = (size_t *)calloc(batch_size, sizeof *p->at);
    p->index = (uint64_t *)calloc(batch_size, sizeof *p->index);
    p->offset = (uint64_t *)calloc(batch_size, sizeof *p->offset);
    p->file = (size_t *)calloc(batch_size, sizeof *p->file);
    out->private_data = p;
    out->release = stream_release;
    if (p->paths == NULL || p->cols == NULL || p->scratch == NULL || p->views == NULL ||
        p->at == NULL || p->index == NULL || p->offset == NULL || p->file == NULL)
        goto oom;
    for (i = 0; i < npaths; i++) {
        size_t len = strlen(paths[i]);
        p->paths[i] = (char *)malloc(len + 1);
        if (p->paths[i] == NULL)
            goto oom;
        memcpy(p->paths[i], paths[i], len + 1);
        p->npaths = i + 1;
    }
    p->opt.index_path = NULL; /* (one index would not fit several files) */
    p->opt.index_text = NULL;
    out->get_schema = stream_schema;
    out->get_next = stream_next;
    out->get_last_error = stream_error;
    return FC_OK;
oom:
    if (out->release != NULL)
        out->release(out);
    else
        free(p);
    {
        fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "arrow: out of memory for a stream");
    }
    return FC_ERR_NO_MEMORY;
}
