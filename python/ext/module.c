/* featc's CPython modules (fc_python.h): the module a generated NAME_py.c
 * creates, its functions and types, registered from the files below it
 * (ext.h lists them). */
#include "ext.h"

#include <unistd.h>

/* ------------------------------------------------------------ the module */

static PyMethodDef module_methods[] = {
    {"read", (PyCFunction)(void (*)(void))fcpy_read, METH_VARARGS | METH_KEYWORDS,
     "read(source, batch_size=256, *, compression='auto', crc='verify', split=None,\n"
     "     byte_range=None, varlen='sparse', message=None, max_record_size=None,\n"
     "     sync='walk', index=None, threads=1, splits=None, shuffle=0, seed=0, skip=0,\n"
     "     raw=False, format='numpy')\n"
     "--\n\n"
     "An iterator over batches of the TFRecord source (a path, a bytes-like object,\n"
     "a binary file object, or a list of them, read one after another; a batch may\n"
     "take records of several).  Each batch is what tf.io.parse_example gives (a\n"
     "dict: key -> array), or for a sequence_example tf.io.parse_sequence_example\n"
     "(context, feature_lists, lengths).  Dense features are arrays [B, ...];\n"
     "VarLen features Sparse(indices, values, dense_shape), or with varlen='ragged'\n"
     "Ragged(values, row_splits); bytes values are featc Bytes.  split=(i, n) reads\n"
     "the i-th of n equal byte ranges of each file, byte_range=(a, b) the records\n"
     "whose header starts in [a, b) (sync and index place them, as featc cat's\n"
     "--sync and --index); splits=[(i, n) or None, ...] a split per source.\n"
     "threads=N parses N batches at a time (the same batches).  shuffle=N draws\n"
     "the records from a shuffle buffer of N records (seed= seeds the draws: the\n"
     "same stream for any batch_size and threads); skip=K passes over the first K\n"
     "records of the stream unparsed; raw=True gives each batch as a list of its\n"
     "records (bytes), unparsed; format='arrow' gives each as a featc.ArrowBatch\n"
     "(Arrow's PyCapsule interface; the reader has __arrow_c_stream__).  A record\n"
     "that fails raises DataError\n"
     "(ValueError) with featc's message, its record index, offset and path;\n"
     "iteration may go on after it with the next batch."},
    {"parse", (PyCFunction)(void (*)(void))fcpy_parse, METH_VARARGS | METH_KEYWORDS,
     "parse(record, *, message=None)\n"
     "--\n\n"
     "One serialized record (bytes-like), as tf.io.parse_single_example gives it: a\n"
     "dict of arrays and scalars (VarLen features as their values; bytes as bytes or\n"
     "featc Bytes), or for a sequence_example (context, feature_lists).  A record\n"
     "that does not parse raises DataError with TensorFlow's message first."},
    {"write", (PyCFunction)(void (*)(void))fcpy_write, METH_VARARGS | METH_KEYWORDS,
     "write(dest, batch, *, compression='none', message=None, append=False,\n"
     "      write_defaults=False)\n"
     "--\n\n"
     "Writes the batch's records (or a list of batches') to dest (a path, or a binary\n"
     "file object with a descriptor) as TFRecords through the spec's serializer, as\n"
     "one stream, and returns how many records.\n"
     "batch is what read() gives: a dict (for a sequence_example, (context,\n"
     "feature_lists[, lengths])); dense features [B, ...], VarLen features as\n"
     "Sparse, Ragged or [B, n] arrays, SparseFeature as Sparse, RaggedFeature as\n"
     "Ragged, bytes as featc Bytes or arrays of bytes.  A value the spec does not\n"
     "allow raises ValueError naming the feature and record."},
    {"write_parquet", (PyCFunction)(void (*)(void))fcpy_write_parquet,
     METH_VARARGS | METH_KEYWORDS,
     "write_parquet(dest, data, *, codec='snappy', row_group_size=65536,\n"
     "              page_size=1048576, **read_options)\n"
     "--\n\n"
     "Writes data as a Parquet file at dest (a path; written beside it and renamed at\n"
     "the end, so that an error leaves nothing there) and returns how many rows: a\n"
     "row per record, a column per feature, in docs/parquet.md's types.  data is a\n"
     "TFRecord source, read as read(data, format='arrow', **read_options) reads it,\n"
     "or a reader of format='arrow', or any object with __arrow_c_stream__ (a\n"
     "pyarrow table, a Polars frame) of featc's Arrow types.  codec: 'snappy',\n"
     "'zstd', 'gzip' or 'none'.  A record that fails raises DataError as in read()."},
    {"segments", (PyCFunction)(void (*)(void))fcpy_segments, METH_VARARGS | METH_KEYWORDS,
     "segments(*, message=None, num_unroll=None, batch_size=None, capacity=None,\n"
     "         allow_small_batch=None, key=None, max_record_size=None)\n"
     "--\n\n"
     "A featc.Segmenter over the segments block of a sequence_example (message, or\n"
     "the spec's first with one): TensorFlow's SequenceQueueingStateSaver.  The\n"
     "block's settings, or those given; key names a context feature (one bytes or\n"
     "int64 value) that gives each example's key; max_record_size bounds the\n"
     "records it keeps (the block's record max, else 1 MiB)."},
    {NULL, NULL, 0, NULL}};

static PyModuleDef module_def = {PyModuleDef_HEAD_INIT, NULL, NULL, -1, module_methods,
                                 NULL, NULL, NULL, NULL};

static PyStructSequence_Field ragged_fields[] = {
    {"values", "the values, flat"},
    {"row_splits", "int64 row splits: one array, or a tuple of them, outermost first"},
    {NULL, NULL}};
static PyStructSequence_Desc ragged_desc = {
    "featc.Ragged", "A ragged tensor: values and row splits (tf.RaggedTensor's parts).",
    ragged_fields, 2};
static PyStructSequence_Field sparse_fields[] = {
    {"indices", "int64 [N, rank]"},
    {"values", "the values [N]"},
    {"dense_shape", "int64 [rank]"},
    {NULL, NULL}};
static PyStructSequence_Desc sparse_desc = {
    "featc.Sparse", "A sparse tensor (tf.SparseTensor's parts).", sparse_fields, 3};

/* numpy's zeros, asarray, ascontiguousarray and the three dtypes. */
static int import_numpy(void)
{
    static const char *const names[DT_COUNT] = {"int64", "float32", "uint8", "int8", "int16", "uint16",
                                                 "int32", "float16", "float64"};
    PyObject *np = PyImport_ImportModule("numpy"), *dtype;
    int k;
    if (np == NULL)
        return -1;
    fcpy_g.zeros = PyObject_GetAttrString(np, "zeros");
    fcpy_g.asarray = PyObject_GetAttrString(np, "asarray");
    fcpy_g.ascontiguous = PyObject_GetAttrString(np, "ascontiguousarray");
    dtype = PyObject_GetAttrString(np, "dtype");
    Py_DECREF(np);
    if (fcpy_g.zeros == NULL || fcpy_g.asarray == NULL ||
        fcpy_g.ascontiguous == NULL || dtype == NULL) {
        Py_XDECREF(dtype);
        return -1;
    }
    for (k = 0; k < DT_COUNT; k++)
        if ((fcpy_g.dtype[k] = PyObject_CallFunction(dtype, "s", names[k])) == NULL)
            break;
    Py_DECREF(dtype);
    return k == DT_COUNT ? 0 : -1;
}

static int add(PyObject *mod, const char *name, PyObject *v)
{
    if (v == NULL)
        return -1;
    Py_INCREF(v);
    if (PyModule_AddObject(mod, name, v) != 0) {
        Py_DECREF(v);
        return -1;
    }
    return 0;
}

PyObject *fcpy_module_create(const fcpy_spec *spec)
{
    PyObject *mod, *names, *base, *error_base;
    size_t i;
    fcpy_g.spec = spec;
    module_def.m_name = spec->module;
    if (import_numpy() != 0 || fcpy_arrays_init() != 0)
        return NULL;
    fcpy_g.block_type = fcpy_block_type_new();
    fcpy_g.bytes_type = fcpy_bytes_type_new();
    fcpy_g.reader_type = fcpy_reader_type_new();
    fcpy_g.segmenter_type = fcpy_segmenter_type_new();
    fcpy_g.arrow_batch_type = fcpy_arrow_batch_type_new();
    fcpy_g.ragged_type = (PyObject *)PyStructSequence_NewType(&ragged_desc);
    fcpy_g.sparse_type = (PyObject *)PyStructSequence_NewType(&sparse_desc);
    if (fcpy_g.block_type == NULL || fcpy_g.bytes_type == NULL ||
        fcpy_g.reader_type == NULL || fcpy_g.segmenter_type == NULL ||
        fcpy_g.arrow_batch_type == NULL ||
        fcpy_g.ragged_type == NULL || fcpy_g.sparse_type == NULL)
        return NULL;
    base = PyUnicode_FromFormat("%s.DataError", spec->module);
    if (base == NULL)
        return NULL;
    /* featc.DataError (the featc package's) when there is one, so that
     * one except clause catches every module's errors */
    {
        PyObject *pkg = PyImport_ImportModule("featc");
        error_base = pkg != NULL ? PyObject_GetAttrString(pkg, "DataError") : NULL;
        Py_XDECREF(pkg);
        if (error_base == NULL || !PyType_Check(error_base) ||
            !PyObject_IsSubclass(error_base, PyExc_ValueError)) {
            PyErr_Clear();
            Py_XDECREF(error_base);
            error_base = Py_NewRef(PyExc_ValueError);
        }
    }
    fcpy_g.error = PyErr_NewExceptionWithDoc(
        PyUnicode_AsUTF8AndSize(base, NULL),
        "A record or file featc could not read or parse: str() is the whole message;\n"
        ".message featc's text (TensorFlow's first), .record the record's index in its\n"
        "file, .offset its byte offset, .path the file, .status featc's status name.",
        error_base, NULL);
    Py_DECREF(base);
    Py_DECREF(error_base);
    if (fcpy_g.error == NULL)
        return NULL;
    mod = PyModule_Create(&module_def);
    if (mod == NULL)
        return NULL;
    names = PyTuple_New((Py_ssize_t)spec->nmessages);
    for (i = 0; names != NULL && i < spec->nmessages; i++)
        PyTuple_SetItem(names, (Py_ssize_t)i, PyUnicode_FromString(spec->messages[i].name));
    if (add(mod, "DataError", fcpy_g.error) != 0 || add(mod, "Bytes", fcpy_g.bytes_type) != 0 ||
        add(mod, "Ragged", fcpy_g.ragged_type) != 0 || add(mod, "Sparse", fcpy_g.sparse_type) != 0 ||
        add(mod, "Reader", fcpy_g.reader_type) != 0 ||
        add(mod, "Segmenter", fcpy_g.segmenter_type) != 0 ||
        add(mod, "ArrowBatch", fcpy_g.arrow_batch_type) != 0 || names == NULL ||
        PyModule_AddObject(mod, "messages", names) != 0 ||
        PyModule_AddObject(mod, "schema", fcpy_schema(spec)) != 0 ||
        PyModule_AddStringConstant(mod, "spec", spec->spec) != 0 ||
        PyModule_AddStringConstant(mod, "featc_version", spec->version) != 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
