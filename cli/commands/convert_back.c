/* featc convert IN.arrow|IN.parquet... -o OUT.tfrecord --spec SPEC: Arrow
 * IPC files or streams, and Parquet files, back to TFRecords.  Each input
 * is mapped into memory and read by fc_arrow_ipc_read or fc_parquet_read
 * (which check every offset and length of the untrusted bytes; a Parquet
 * file's row groups come out as Arrow arrays); its schema is matched to the spec's mapping (fc_arrow_rows_open:
 * a column per feature, by name); each row fills the message's struct and
 * goes through the spec's serializer (fc_ex_serialize / fc_seq_serialize,
 * FC_OMIT_DEFAULTS: the bytes the generated code and mod.write give) into
 * one fc_writer.  Errors name the input, the record batch (row group) and
 * the row; the
 * output is a temporary file renamed over OUT only when every row is
 * written.
 *
 * With -j N (not 1), a Parquet file has its row groups, or pieces of them,
 * decoded and serialized on N threads (convert_jobs.c) and written here in
 * order: the same bytes, and the same first error, as one thread gives.
 *
 * Memory: the message struct, the serialized record (grown to the largest
 * one), the schema and each batch's nodes; the input is mapped, not
 * read.  With -j N: per thread a reader and a struct, the arrays of the
 * row groups being serialized, and up to 2 N pieces' records. */
#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <featc/fc_arrow.h>
#include <featc/fc_parquet.h>
#include <featc/fc_serialize.h>

#include <featc/fc_codecs.h>
#include "base/progress.h"
#include "base/spec.h"
#include "convert_back.h"
#include "convert_jobs.h"

int cli_arrow_input(int fd, const char *path)
{
    unsigned char head[8];
    ssize_t n;
    if (fd < 0)
        return 0;
    do
        n = pread(fd, head, sizeof head, 0); /* (the offset stays where reads start) */
    while (n < 0 && errno == EINTR);
    if (n < 0 && errno == ESPIPE)
        return 0; /* a pipe: records, read from its first byte */
    if (n < 0) {
        cli_fail(EXIT_DATA_ERR, "%s: %s", path, strerror(errno));
        return -1;
    }
    if (n >= 6 && memcmp(head, "ARROW1", 6) == 0)
        return 1;
    if (n >= 4 && memcmp(head, "PAR1", 4) == 0)
        return 2;
    /* a stream starts with the continuation word and a schema message */
    return n == 8 && memcmp(head, "\xff\xff\xff\xff", 4) == 0;
}

typedef struct back {
    const convert_opts *o;
    cli_spec spec;
    void *msg;
    unsigned char *buf;
    size_t cap;
    fc_writer w;
    uint64_t rows;
} back;

/* b->buf grown to len bytes: FC_OK, or FC_ERR_NO_MEMORY with err set. */
static int grow(back *b, size_t len, fc_error *err)
{
    unsigned char *q = (unsigned char *)realloc(b->buf, len);
    if (q == NULL) {
        fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "out of memory for a record");
        return FC_ERR_NO_MEMORY;
    }
    b->buf = q;
    b->cap = len;
    return FC_OK;
}

/* One row serialized and written: FC_OK or the status, err set.  The
 * buffer grows to the largest record (a record that does not fit says the
 * size it needs, and is serialized again). */
static int put_row(back *b, fc_error *err)
{
    size_t len = 0;
    int rc, tries;
    for (tries = 0; tries < 2; tries++) {
        rc = b->spec.md != NULL
                 ? fc_ex_serialize(b->spec.md, b->msg, FC_OMIT_DEFAULTS, b->buf, b->cap, &len, err)
                 : fc_seq_serialize(b->spec.sd, b->msg, FC_OMIT_DEFAULTS, b->buf, b->cap, &len,
                                    err);
        if (rc != FC_ERR_NO_SPACE)
            break;
        if (grow(b, len, err) != FC_OK)
            return FC_ERR_NO_MEMORY;
    }
    return fc_ser_append(&b->w, rc, b->buf, len, err);
}

/* Row i of a straight into a record (fc_arrow_rows_serialize): 1 with
 * *s the append's status, or 0 for a row it does not take (put_row's). */
static int put_direct(back *b, fc_arrow_rows *rows, const struct ArrowSchema *schema,
                      const struct ArrowArray *a, int64_t i, int *s, fc_error *err)
{
    size_t n = fc_arrow_rows_serialize(rows, schema, a, i, b->buf, b->cap);
    if (n == 0)
        return 0;
    if (n > b->cap) {
        if ((*s = grow(b, n, err)) != FC_OK)
            return 1;
        n = fc_arrow_rows_serialize(rows, schema, a, i, b->buf, b->cap);
    }
    *s = fc_ser_append(&b->w, FC_OK, b->buf, n, err);
    return 1;
}

/* EXIT_DATA_ERR, "the file changed size during the read" printed, when the
 * file was cut under its map (at_end: or is shorter now); else 0.  A file
 * cut under the read reads as zeros from the cut, its footer and schema
 * too: that is the error, not what the zeros look like. */
static int cut_under(const char *path, const fc_map_guard *guard, size_t len, int at_end,
                     progress *pg)
{
    fc_error err;
    uint64_t gone;
    if (!(at_end ? fc_input_map_shrank(guard, &gone) : fc_input_map_changed(guard, &gone)))
        return 0;
    progress_clear(pg);
    fc_input_changed_error(&err, path, (uint64_t)len, gone);
    return cli_fail(EXIT_DATA_ERR, "%s", err.message);
}

/* An input's batches: an Arrow IPC file's or stream's record batches, or a
 * Parquet file's row groups. */
typedef struct source {
    fc_arrow_ipc_reader *ipc;
    fc_parquet_reader *pq;
    fc_codecs *codecs; /* ZSTD's context, kept from page to page */
    const char *unit; /* "record batch", "row group" */
} source;

static int source_open(source *r, int parquet, const void *data, size_t len,
                       struct ArrowSchema *schema, fc_error *err)
{
    int s;
    memset(r, 0, sizeof *r);
    if (parquet) {
        fc_parquet_read_options ro;
        memset(&ro, 0, sizeof ro);
        ro.decompress = fc_codecs_decompress;
        ro.decompress_ctx = r->codecs = fc_codecs_new(); /* (NULL: a context per page) */
        r->unit = "row group";
        s = fc_parquet_read_open(&r->pq, data, len, &ro, err);
        return s == FC_OK ? fc_parquet_read_schema(r->pq, schema, err) : s;
    }
    r->unit = "record batch";
    s = fc_arrow_ipc_read_open(&r->ipc, data, len, err);
    return s == FC_OK ? fc_arrow_ipc_read_schema(r->ipc, schema, err) : s;
}

static int source_next(source *r, struct ArrowArray *a, fc_error *err)
{
    return r->pq != NULL ? fc_parquet_read_next(r->pq, a, err)
                         : fc_arrow_ipc_read_next(r->ipc, a, err);
}

static uint64_t source_offset(const source *r)
{
    return r->pq != NULL ? fc_parquet_read_offset(r->pq) : fc_arrow_ipc_read_offset(r->ipc);
}

static void source_close(source *r)
{
    fc_codecs_free(r->codecs);
    fc_parquet_read_close(r->pq);
    fc_arrow_ipc_read_close(r->ipc);
}

/* Where the rows of one input stand, for the errors that name a row. */
typedef struct at_file {
    back *b;
    const char *path, *unit;
    const fc_map_guard *guard;
    size_t len;
    progress *pg;
    uint64_t row_in_file;
} at_file;

/* Row i of batch (row group) `batch` failed with status s: the exit status,
 * the error printed (the file's change under the read first, if so). */
static int row_error(at_file *x, uint64_t batch, int64_t i, int s, const fc_error *err)
{
    int rc;
    progress_clear(x->pg);
    if ((rc = cut_under(x->path, x->guard, x->len, 0, x->pg)) == 0)
        rc = cli_fail(s == FC_ERR_IO || s == FC_ERR_NO_MEMORY ? EXIT_DATA_ERR : EXIT_RECORD_ERR,
                      "%s: %s %llu, row %lld (row %llu of the file): %s", x->path, x->unit,
                      (unsigned long long)batch, (long long)i,
                      (unsigned long long)x->row_in_file, err->message);
    return rc;
}

/* A batch (row group) that could not be read. */
static int batch_error(at_file *x, uint64_t batch, int s, const fc_error *err)
{
    int rc;
    progress_clear(x->pg);
    if ((rc = cut_under(x->path, x->guard, x->len, 1, x->pg)) == 0)
        rc = cli_fail(s == FC_ERR_UNSUPPORTED ? EXIT_RECORD_ERR : EXIT_DATA_ERR,
                      "%s: %s %llu: %s", x->path, x->unit, (unsigned long long)batch,
                      err->message);
    return rc;
}

/* -j N over a Parquet file: a piece of a row group back from
 * convert_jobs.c, written as the one-thread loop below writes it (the same
 * records, and the same first error, at the same row). */
static int write_group(void *ctx, const back_group *g)
{
    at_file *x = (at_file *)ctx;
    size_t c = 0, off = 0;
    fc_error err;
    int64_t k;
    if (g->status != FC_OK && g->at_row < 0)
        return batch_error(x, g->index, g->status, &g->err);
    for (k = 0; k < g->nrec; k++) {
        fc_status s;
        if (g->lens[k] > 0 && off + g->lens[k] > g->chunks[c].used) { /* the next chunk */
            c++;
            off = 0;
        }
        s = fc_ser_append(&x->b->w, FC_OK, g->lens[k] > 0 ? g->chunks[c].p + off : NULL,
                          g->lens[k], &err);
        if (s != FC_OK)
            return row_error(x, g->index, g->first_row + k, s, &err);
        off += g->lens[k];
        x->b->rows++;
        x->row_in_file++;
    }
    if (g->status != FC_OK)
        return row_error(x, g->index, g->at_row, g->status, &g->err);
    progress_record(x->pg, g->offset);
    return cut_under(x->path, x->guard, x->len, 0, x->pg);
}

/* One input file into the writer: the exit status, errors printed. */
static int convert_file(back *b, const char *path, int fd, int parquet, progress *pg)
{
    source r;
    fc_arrow_rows *rows = NULL;
    struct ArrowSchema schema;
    fc_mapped_file map;
    fc_map_guard *guard = NULL;
    size_t len = 0;
    uint64_t batch = 0;
    at_file x;
    fc_error err;
    int rc = EXIT_OK, s;
    fc_error_clear(&err);
    memset(&schema, 0, sizeof schema);
    memset(&map, 0, sizeof map);
    /* mapped as every input is (fc_input_map): a file cut while it is read
     * gives zero pages and an error after the batch that met them, not
     * SIGBUS */
    if (fc_input_map_fd(fd, &map, &guard, &err) != FC_OK)
        return cli_fail(EXIT_DATA_ERR, "%s: %s", path, err.message);
    len = map.size;
    s = source_open(&r, parquet, map.data != NULL ? (const void *)map.data : "", len, &schema,
                    &err);
    if (s != FC_OK) {
        if ((rc = cut_under(path, guard, len, 1, pg)) == 0)
            rc = cli_fail(EXIT_DATA_ERR, "%s: %s", path, err.message);
        goto out;
    }
    if (fc_arrow_rows_open(&rows, b->spec.md, b->spec.sd, &schema, &err) != FC_OK) {
        if ((rc = cut_under(path, guard, len, 1, pg)) == 0)
            rc = cli_fail(EXIT_RECORD_ERR, "%s: %s", path, err.message);
        goto out;
    }
    x.b = b;
    x.path = path;
    x.unit = r.unit;
    x.guard = guard;
    x.len = len;
    x.pg = pg;
    x.row_in_file = 0;
    /* -j N: the row groups on N threads, in pieces */
    if (r.pq != NULL && b->o->jobs != 1 &&
        (rc = back_jobs_run(&b->spec, map.data, len, fc_parquet_read_groups(r.pq),
                            fc_parquet_read_rows(r.pq), b->o->jobs, write_group, &x)) != -1)
        goto done;
    rc = EXIT_OK; /* (no thread started: this one reads them all) */
    for (;;) {
        struct ArrowArray a;
        int64_t i;
        s = source_next(&r, &a, &err);
        if (s == FC_END)
            break;
        if (s != FC_OK) {
            rc = batch_error(&x, batch, s, &err);
            break;
        }
        for (i = 0; i < a.length && rc == EXIT_OK; i++, x.row_in_file++) {
            if (!put_direct(b, rows, &schema, &a, i, &s, &err) &&
                (s = fc_arrow_rows_get(rows, &schema, &a, i, b->msg, &err)) == FC_OK)
                s = put_row(b, &err);
            if (s != FC_OK)
                rc = row_error(&x, batch, i, s, &err);
            b->rows++;
        }
        a.release(&a);
        if (rc == EXIT_OK)
            rc = cut_under(path, guard, len, 0, pg);
        progress_record(pg, source_offset(&r));
        batch++;
        if (rc != EXIT_OK)
            break;
    }
done:
    if (rc == EXIT_OK)
        rc = cut_under(path, guard, len, 1, pg);
    progress_file_done(pg, len);
out:
    fc_arrow_rows_close(rows);
    if (schema.release != NULL)
        schema.release(&schema);
    source_close(&r);
    fc_input_unmap(&map, guard);
    return rc;
}

static fc_compression out_compression(const convert_opts *o)
{
    size_t n = strlen(o->output);
    if (o->compression_given && o->read.compression != FC_COMPRESSION_AUTO)
        return o->read.compression;
    if (n >= 3 && strcmp(o->output + n - 3, ".gz") == 0)
        return FC_COMPRESSION_GZIP;
    if (n >= 3 && strcmp(o->output + n - 3, ".zz") == 0)
        return FC_COMPRESSION_ZLIB;
    return FC_COMPRESSION_NONE;
}

int cli_arrow_to_records(const convert_opts *o)
{
    back b;
    fc_writer_options wo;
    fc_error err;
    progress pg;
    fc_output dst;
    void *work = NULL;
    int rc = EXIT_OK, k, ok;
    if (o->spec == NULL)
        return cli_usage_error(NULL, "convert: Arrow and Parquet input need --spec: the spec "
                                     "whose serializer writes the records");
    if (o->stream || o->read.part != FC_PART_ALL)
        return cli_usage_error(NULL, "convert: --stream and the part options (--split, "
                                     "--range, --records) are for TFRecord input");
    for (k = 0; k < o->nfiles; k++) {
        if (o->arrow[k] == 0)
            return cli_fail(EXIT_DATA_ERR, "%s: not an Arrow IPC file or stream nor a Parquet "
                                           "file (TFRecords go to Arrow with -o FILE.arrow, "
                                           "to Parquet with -o FILE.parquet)",
                            o->files[k]);
    }
    memset(&b, 0, sizeof b);
    b.o = o;
    if ((rc = cli_spec_open(&b.spec, o->spec, o->message)) != EXIT_OK)
        return rc;
    b.msg = malloc(b.spec.size);
    work = malloc(FC_WRITER_WORK_SIZE);
    if (b.msg == NULL || work == NULL) {
        rc = cli_fail(EXIT_DATA_ERR, "out of memory");
        goto out;
    }
    if ((rc = cli_temp_open(&dst, o->output)) != EXIT_OK)
        goto out;
    memset(&wo, 0, sizeof wo);
    wo.compression = out_compression(o);
    wo.work = work;
    wo.work_size = FC_WRITER_WORK_SIZE;
    fc_error_clear(&err);
    if (fc_writer_init_fd(&b.w, fileno(dst.f), &wo, &err) != FC_OK) {
        rc = cli_fail(EXIT_DATA_ERR, "%s: %s", o->output, err.message);
        cli_temp_close(&dst, o->output, 0);
        goto out;
    }
    progress_start(&pg, "convert", o->files, o->nfiles, o->progress, 0);
    for (k = 0; k < o->nfiles && rc == EXIT_OK; k++)
        rc = convert_file(&b, o->files[k], o->fds[k], o->arrow[k] == 2, &pg);
    progress_end(&pg);
    ok = fc_writer_close(&b.w) == FC_OK;
    if (!ok && rc == EXIT_OK)
        rc = cli_fail(EXIT_DATA_ERR, "%s: %s", o->output, fc_writer_error(&b.w)->message);
    k = cli_temp_close(&dst, o->output, rc == EXIT_OK);
    if (rc == EXIT_OK)
        rc = k;
out:
    free(work);
    free(b.msg);
    free(b.buf);
    cli_spec_close(&b.spec);
    return rc;
}
