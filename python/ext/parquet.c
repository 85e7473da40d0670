/* write_parquet(): batches into a Parquet file through libfeatc's writer
 * (runtime/hosted/parquet_write.c) and libfeatc_codecs.a's SNAPPY and
 * ZSTD: the batches of read(format='arrow') over TFRecord sources, or of
 * any object with Arrow's __arrow_c_stream__ (a featc reader, a pyarrow
 * table, a Polars frame) whose schema is one of featc's Arrow mapping.
 *
 * The file is written beside dest under a temporary name and renamed over
 * dest at the end, as featc convert does: an error (a record that does not
 * parse, a type the writer refuses, a full disk) leaves nothing under
 * dest.  Memory: the writer's (the row group being written), the batch. */
#include "ext.h"

#include <errno.h>
#include <stdio.h>

#include "featc/fc_codecs.h"
#include "featc/fc_parquet.h"

/* What write_parquet holds: the temporary file, the writer, the source. */
typedef struct pq_job {
    const char *path;
    fc_output out; /* the temporary file */
    fc_parquet *w;
    fc_codecs *codecs;
    PyObject *reader;  /* a featc reader iterated directly (errors keep their type), or NULL */
    PyObject *capsule; /* the source's stream capsule */
    struct ArrowArrayStream *stream;
    struct ArrowSchema schema;
} pq_job;

/* The temporary file beside j->path (fc_output_open): 0, or -1 with
 * OSError set. */
static int temp_open(pq_job *j)
{
    int e = fc_output_open(&j->out, j->path);
    if (e == ENOMEM) {
        PyErr_NoMemory();
        return -1;
    }
    if (e != 0) {
        errno = e;
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, j->path);
        return -1;
    }
    return 0;
}

/* Frees what j holds; the temporary file renamed over j->path when ok,
 * else removed.  0, or -1 with an exception set (when ok and the file
 * could not be finished). */
static int job_end(pq_job *j, int ok)
{
    int e = 0;
    if (j->w != NULL) {
        fc_error err;
        fc_error_clear(&err);
        if (fc_parquet_close(j->w, &err) != FC_OK && ok) {
            fcpy_raise_error(&err, j->path, FC_NO_INDEX, FC_NO_INDEX, 0);
            ok = 0;
        }
        j->w = NULL;
    }
    fc_codecs_free(j->codecs);
    j->codecs = NULL;
    if ((e = fc_output_close(&j->out, j->path, ok)) != 0) {
        errno = e;
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, j->path);
        ok = 0;
    }
    if (j->schema.release != NULL)
        j->schema.release(&j->schema);
    Py_CLEAR(j->capsule); /* (the capsule's destructor releases the stream) */
    Py_CLEAR(j->reader);
    return ok ? 0 : -1;
}

/* The options of the writer out of kw (removed from it, the rest being
 * read()'s): 0, or -1 with an exception set. */
static int writer_options(PyObject *kw, fc_parquet_options *po)
{
    PyObject *v;
    size_t n;
    memset(po, 0, sizeof *po);
    po->codec = FC_PARQUET_SNAPPY;
    po->row_group_rows = FC_PARQUET_ROW_GROUP_ROWS;
    po->page_bytes = FC_PARQUET_PAGE_BYTES;
    if (kw == NULL)
        return 0;
    if ((v = PyDict_GetItemString(kw, "codec")) != NULL) {
        const char *name = PyUnicode_Check(v) ? PyUnicode_AsUTF8AndSize(v, NULL) : NULL;
        const char *missing;
        if (name == NULL || (po->codec = fc_parquet_codec(name)) < 0) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "write_parquet: codec must be one of 'snappy', "
                                              "'zstd', 'gzip', 'none'");
            return -1;
        }
        if ((missing = fc_codecs_missing(po->codec)) != NULL) {
            PyErr_Format(PyExc_ValueError,
                         "write_parquet: codec '%s' needs %s, which this build of featc lacks",
                         name, missing);
            return -1;
        }
        if (PyDict_DelItemString(kw, "codec") != 0)
            return -1;
    }
    if ((v = PyDict_GetItemString(kw, "row_group_size")) != NULL) {
        if (fcpy_size_option(v, "write_parquet: row_group_size", 1, INT32_MAX, &n) != 0)
            return -1;
        po->row_group_rows = n;
        if (PyDict_DelItemString(kw, "row_group_size") != 0)
            return -1;
    }
    if ((v = PyDict_GetItemString(kw, "page_size")) != NULL) {
        if (fcpy_size_option(v, "write_parquet: page_size", 1, (Py_ssize_t)1 << 30, &n) != 0)
            return -1;
        po->page_bytes = n;
        if (PyDict_DelItemString(kw, "page_size") != 0)
            return -1;
    }
    return 0;
}

/* j's source: data itself when it is a featc reader or has
 * __arrow_c_stream__ (read options then refused), else read(data,
 * format='arrow', **kw) of this module; kw is the caller's own dict of the
 * read options (format is set in it).  0, or -1 with an exception. */
static int source_open(pq_job *j, PyObject *module, PyObject *data, PyObject *kw)
{
    PyObject *src;
    if (PyObject_TypeCheck(data, (PyTypeObject *)fcpy_g.reader_type) ||
        PyObject_HasAttrString(data, "__arrow_c_stream__")) {
        if (PyDict_Size(kw) > 0) {
            PyErr_SetString(PyExc_TypeError,
                            "write_parquet: read() options apply to TFRecord sources only, "
                            "not to a reader or an Arrow stream");
            return -1;
        }
        src = Py_NewRef(data);
    } else {
        PyObject *read, *args, *fmt = PyDict_GetItemString(kw, "format");
        int ok = 1;
        if (fmt == NULL) {
            PyObject *word = PyUnicode_FromString("arrow");
            ok = word != NULL && PyDict_SetItemString(kw, "format", word) == 0;
            Py_XDECREF(word);
        } else if (!PyUnicode_Check(fmt) ||
                   (PyUnicode_CompareWithASCIIString(fmt, "arrow") != 0 &&
                    PyUnicode_CompareWithASCIIString(fmt, "arrow-large") != 0)) {
            PyErr_SetString(PyExc_ValueError,
                            "write_parquet: format must be 'arrow' or 'arrow-large'");
            ok = 0;
        }
        if (!ok)
            return -1;
        read = PyObject_GetAttrString(module, "read");
        args = read != NULL ? PyTuple_Pack(1, data) : NULL;
        src = args != NULL ? PyObject_Call(read, args, kw) : NULL;
        Py_XDECREF(args);
        Py_XDECREF(read);
        if (src == NULL)
            return -1;
    }
    if (PyObject_TypeCheck(src, (PyTypeObject *)fcpy_g.reader_type))
        j->reader = Py_NewRef(src);
    j->capsule = PyObject_CallMethod(src, "__arrow_c_stream__", NULL);
    Py_DECREF(src);
    if (j->capsule == NULL)
        return -1;
    j->stream = (struct ArrowArrayStream *)PyCapsule_GetPointer(j->capsule, "arrow_array_stream");
    if (j->stream == NULL || j->stream->release == NULL) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "write_parquet: a released Arrow stream");
        return -1;
    }
    if (j->stream->get_schema(j->stream, &j->schema) != 0) {
        const char *m = j->stream->get_last_error(j->stream);
        PyErr_Format(PyExc_ValueError, "write_parquet: the source's schema: %s",
                     m != NULL ? m : "no schema");
        return -1;
    }
    return 0;
}

/* The next batch: *a its struct array, *hold what keeps it alive (a
 * featc batch, or NULL: then a is the stream's, to release); a->release
 * NULL and *hold NULL at the end.  0, or -1 with an exception (a featc
 * reader's own, with its record and offset). */
static int next_batch(pq_job *j, struct ArrowArray *own, const struct ArrowArray **a,
                      PyObject **hold)
{
    int rc;
    memset(own, 0, sizeof *own);
    *a = own;
    *hold = NULL;
    if (j->reader != NULL) {
        PyObject *b = PyIter_Next(j->reader);
        if (b == NULL)
            return PyErr_Occurred() ? -1 : 0;
        if ((*a = fcpy_arrow_batch_array(b)) == NULL) {
            Py_DECREF(b);
            PyErr_SetString(PyExc_TypeError,
                            "write_parquet: a reader of format='arrow' or 'arrow-large'");
            return -1;
        }
        *hold = b;
        return 0;
    }
    Py_BEGIN_ALLOW_THREADS
    rc = j->stream->get_next(j->stream, own);
    Py_END_ALLOW_THREADS
    if (rc != 0) {
        const char *m = j->stream->get_last_error(j->stream);
        PyErr_Format(PyExc_ValueError, "write_parquet: the source: %s",
                     m != NULL ? m : strerror(rc));
        return -1;
    }
    return 0;
}

PyObject *fcpy_write_parquet(PyObject *module, PyObject *args, PyObject *kw)
{
    PyObject *dest, *data, *path = NULL, *opts;
    fc_parquet_options po;
    pq_job j;
    fc_error err;
    int ok = 0;
    uint64_t rows = 0;
    if (!PyArg_ParseTuple(args, "OO:write_parquet", &dest, &data))
        return NULL;
    if (!PyUnicode_Check(dest) && !PyBytes_Check(dest) &&
        !PyObject_HasAttrString(dest, "__fspath__")) {
        PyErr_SetString(PyExc_TypeError, "write_parquet: dest must be a path (the file is "
                                         "written beside it and renamed at the end)");
        return NULL;
    }
    if (!PyUnicode_FSConverter(dest, &path))
        return NULL;
    opts = kw != NULL ? PyDict_Copy(kw) : PyDict_New();
    if (opts == NULL || writer_options(opts, &po) != 0) {
        Py_XDECREF(opts);
        Py_DECREF(path);
        return NULL;
    }
    memset(&j, 0, sizeof j);
    j.path = PyBytes_AsString(path);
    fc_error_clear(&err);
    if (source_open(&j, module, data, opts) != 0 || temp_open(&j) != 0)
        goto out;
    po.compress = fc_codecs_compress;
    po.compress_ctx = j.codecs = fc_codecs_new(); /* (NULL: a context per page) */
    if (fc_parquet_open(&j.w, j.out.f, &j.schema, &po, &err) != FC_OK) {
        j.w = NULL;
        fcpy_raise_error(&err, j.path, FC_NO_INDEX, FC_NO_INDEX, 0);
        goto out;
    }
    for (;;) {
        struct ArrowArray own;
        const struct ArrowArray *a;
        PyObject *hold;
        int s;
        if (next_batch(&j, &own, &a, &hold) != 0)
            goto out;
        if (hold == NULL && own.release == NULL)
            break;
        rows += (uint64_t)a->length;
        Py_BEGIN_ALLOW_THREADS
        s = fc_parquet_write(j.w, a, &err);
        if (own.release != NULL)
            own.release(&own);
        Py_END_ALLOW_THREADS
        Py_XDECREF(hold);
        if (s != FC_OK) {
            fcpy_raise_error(&err, j.path, FC_NO_INDEX, FC_NO_INDEX, 0);
            goto out;
        }
    }
    ok = 1;
out:
    if (job_end(&j, ok) != 0)
        ok = 0;
    Py_DECREF(opts);
    Py_DECREF(path);
    return ok ? PyLong_FromUnsignedLongLong(rows) : NULL;
}
