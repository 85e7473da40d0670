/* featc's CPython modules (fc_python.h): read(), parse() and write() of a
 * spec's messages, batches as NumPy arrays in tf.io.parse_example's
 * layouts.  Written against the stable ABI of Python 3.11.
 *
 * Memory: a batch is parsed into one block (malloc, sized by
 * fc_batch_bind for the batch size at the spec's bounds: pages the batch
 * does not touch are never faulted in); its numeric arrays are NumPy views
 * of that block, which lives as long as any of them.  Bytes values are
 * copied out of the records into a block of their own per column (offsets,
 * then the bytes).  Records are read in place from a mapped file or a
 * bytes-like object, else copied into the reader's record buffer.  The GIL
 * is released while records are read and parsed. */
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "featc/fc.h"
#include "featc/fc_batch.h"
#include "featc/fc_input.h"
#include "featc/fc_python.h"
#include "featc/fc_serialize.h"

#define MAX_BATCH 1000000
#define MAX_THREADS 1024

static const fcpy_spec *g_spec;
static PyObject *g_frombuffer, *g_zeros, *g_array, *g_asarray, *g_ascontiguous, *g_dtype[3]; /* int64, float32, uint8 */
static PyObject *g_block_type, *g_bytes_type, *g_reader_type;
static PyObject *g_ragged_type, *g_sparse_type, *g_error;

enum { DT_INT64, DT_FLOAT32, DT_UINT8 };

/* A type's slot: a function, or data (docs, method tables).  PyType_Slot
 * holds both as void *, which ISO C does not convert a function pointer
 * to; make_type does it through a union. */
typedef void (*any_fn)(void);
#define FN(f) ((any_fn)(f))
typedef struct fslot {
    int id;
    any_fn fn;
    void *data;
} fslot;

/* ------------------------------------------------------------ blocks */

/* Memory NumPy arrays are views of: freed when the last of them goes. */
typedef struct {
    PyObject_HEAD
    void *mem;
    size_t size;
} block_object;

static void *aligned_alloc16(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, FC_BATCH_ALIGN, size > 0 ? size : 1) != 0)
        return NULL;
    return p;
}

/* A block object that owns mem (freed here on failure). */
static PyObject *block_new(void *mem, size_t size)
{
    block_object *b = PyObject_New(block_object, (PyTypeObject *)g_block_type);
    if (b == NULL) {
        free(mem);
        return NULL;
    }
    b->mem = mem;
    b->size = size;
    return (PyObject *)b;
}

static void block_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    free(((block_object *)self)->mem);
    PyObject_Free(self);
    Py_DECREF(tp);
}

static int block_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    block_object *b = (block_object *)self;
    return PyBuffer_FillInfo(view, self, b->mem, (Py_ssize_t)b->size, 0, flags);
}

static const fslot block_slots[] = {
    {Py_tp_dealloc, FN(block_dealloc), NULL},
    {Py_bf_getbuffer, FN(block_getbuffer), NULL},
    {Py_tp_doc, NULL, (void *)"Memory of a featc batch that NumPy arrays view."},
    {0, NULL, NULL}};

/* ------------------------------------------------------------ arrays */

static PyObject *shape_tuple(const int64_t *shape, unsigned rank)
{
    PyObject *t = PyTuple_New((Py_ssize_t)rank);
    unsigned k;
    if (t == NULL)
        return NULL;
    for (k = 0; k < rank; k++) {
        PyObject *v = PyLong_FromLongLong((long long)shape[k]);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SetItem(t, (Py_ssize_t)k, v);
    }
    return t;
}

/* A NumPy array of n values of type dt at ptr (inside owner's block at
 * base), shaped as shape[0..rank) (rank 0: one dimension of n). */
static PyObject *view_array(PyObject *owner, const void *base, const void *ptr, int dt, size_t n,
                            const int64_t *shape, unsigned rank)
{
    PyObject *arr, *shaped, *tup, *args, *kw;
    int64_t flat = (int64_t)n;
    if (rank == 0) {
        shape = &flat;
        rank = 1;
    }
    tup = shape_tuple(shape, rank);
    if (tup == NULL)
        return NULL;
    if (n == 0) {
        arr = PyObject_CallFunctionObjArgs(g_zeros, tup, g_dtype[dt], NULL);
        Py_DECREF(tup);
        return arr;
    }
    args = Py_BuildValue("(O)", owner);
    kw = Py_BuildValue("{s:O,s:n,s:n}", "dtype", g_dtype[dt], "count", (Py_ssize_t)n, "offset",
                       (Py_ssize_t)((const char *)ptr - (const char *)base));
    arr = args != NULL && kw != NULL ? PyObject_Call(g_frombuffer, args, kw) : NULL;
    Py_XDECREF(args);
    Py_XDECREF(kw);
    if (arr == NULL || rank == 1) {
        Py_DECREF(tup);
        return arr;
    }
    shaped = PyObject_CallMethod(arr, "reshape", "(O)", tup);
    Py_DECREF(arr);
    Py_DECREF(tup);
    return shaped;
}

/* A small int64 array holding shape[0..rank) (a SparseTensor's dense_shape). */
static PyObject *shape_array(const int64_t *shape, unsigned rank)
{
    PyObject *tup = shape_tuple(shape, rank), *arr;
    if (tup == NULL)
        return NULL;
    arr = PyObject_CallFunctionObjArgs(g_array, tup, g_dtype[DT_INT64], NULL);
    Py_DECREF(tup);
    return arr;
}

/* ------------------------------------------------------------ bytes */

/* Bytes values of a column, packed: offsets [n + 1] (int64), then the
 * bytes; made without the GIL (pack_bytes), wrapped with it. */
typedef struct packed {
    void *mem;
    size_t size, n;
} packed;

static int pack_bytes(packed *p, const fc_bytes *v, size_t n)
{
    size_t total = 0, k, head;
    int64_t *off;
    unsigned char *data;
    for (k = 0; k < n; k++) {
        if (v[k].size > SIZE_MAX / 2 - total)
            return -1;
        total += v[k].size;
    }
    if (n >= (SIZE_MAX / 2) / sizeof(int64_t) - 1)
        return -1;
    head = (n + 1) * sizeof(int64_t);
    p->mem = aligned_alloc16(head + total);
    if (p->mem == NULL)
        return -1;
    p->size = head + total;
    p->n = n;
    off = (int64_t *)p->mem;
    data = (unsigned char *)p->mem + head;
    off[0] = 0;
    for (k = 0; k < n; k++) {
        if (v[k].size > 0)
            memcpy(data + off[k], v[k].data, v[k].size);
        off[k + 1] = off[k] + (int64_t)v[k].size;
    }
    return 0;
}

/* featc's Bytes: a column of bytes values, flat, with a shape. */
typedef struct {
    PyObject_HEAD
    PyObject *owner;      /* the block holding offsets and data */
    const int64_t *offsets;
    const unsigned char *data;
    Py_ssize_t n;
    PyObject *shape;      /* tuple */
} bytes_object;

static PyObject *bytes_new(PyObject *owner, const int64_t *offsets, const unsigned char *data,
                           size_t n, PyObject *shape)
{
    bytes_object *b = PyObject_GC_New(bytes_object, (PyTypeObject *)g_bytes_type);
    if (b == NULL) {
        Py_DECREF(shape);
        return NULL;
    }
    Py_INCREF(owner);
    b->owner = owner;
    b->offsets = offsets;
    b->data = data;
    b->n = (Py_ssize_t)n;
    b->shape = shape;
    PyObject_GC_Track((PyObject *)b);
    return (PyObject *)b;
}

/* Wraps a packed column (its memory then belongs to the new object). */
static PyObject *bytes_from_packed(packed *p, const int64_t *shape, unsigned rank)
{
    int64_t flat = (int64_t)p->n;
    PyObject *owner, *tup, *r;
    tup = rank == 0 ? shape_tuple(&flat, 1) : shape_tuple(shape, rank);
    if (tup == NULL)
        return NULL;
    owner = block_new(p->mem, p->size);
    p->mem = NULL;
    if (owner == NULL) {
        Py_DECREF(tup);
        return NULL;
    }
    r = bytes_new(owner, (const int64_t *)((block_object *)owner)->mem,
                  (const unsigned char *)((block_object *)owner)->mem +
                      (p->n + 1) * sizeof(int64_t),
                  p->n, tup);
    Py_DECREF(owner);
    return r;
}

static int bytes_traverse(PyObject *self, visitproc visit, void *arg)
{
    bytes_object *b = (bytes_object *)self;
    Py_VISIT(b->owner);
    Py_VISIT(b->shape);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int bytes_clear(PyObject *self)
{
    bytes_object *b = (bytes_object *)self;
    Py_CLEAR(b->owner);
    Py_CLEAR(b->shape);
    return 0;
}

static void bytes_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    bytes_clear(self);
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

static Py_ssize_t bytes_len(PyObject *self)
{
    return ((bytes_object *)self)->n;
}

static PyObject *bytes_item(PyObject *self, Py_ssize_t i)
{
    bytes_object *b = (bytes_object *)self;
    if (i < 0 || i >= b->n) {
        PyErr_SetString(PyExc_IndexError, "featc.Bytes index out of range");
        return NULL;
    }
    return PyBytes_FromStringAndSize((const char *)b->data + b->offsets[i],
                                     (Py_ssize_t)(b->offsets[i + 1] - b->offsets[i]));
}

static PyObject *bytes_tolist(PyObject *self, PyObject *unused)
{
    bytes_object *b = (bytes_object *)self;
    PyObject *list = PyList_New(b->n);
    Py_ssize_t i;
    (void)unused;
    if (list == NULL)
        return NULL;
    for (i = 0; i < b->n; i++) {
        PyObject *v = bytes_item(self, i);
        if (v == NULL) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SetItem(list, i, v);
    }
    return list;
}

/* An object array of Python bytes, shaped. */
static PyObject *bytes_to_numpy(PyObject *self, PyObject *unused)
{
    bytes_object *b = (bytes_object *)self;
    PyObject *list = bytes_tolist(self, unused), *arr, *shaped;
    Py_ssize_t i;
    if (list == NULL)
        return NULL;
    /* an object array filled one by one: np.array(list) would turn
     * equal-length bytes into a fixed-width "S" array */
    arr = PyObject_CallFunction(g_zeros, "(n)s", b->n, "O");
    if (arr != NULL) {
        for (i = 0; i < b->n; i++) {
            PyObject *idx = PyLong_FromSsize_t(i);
            int rc = idx != NULL ? PyObject_SetItem(arr, idx, PyList_GetItem(list, i)) : -1;
            Py_XDECREF(idx);
            if (rc != 0) {
                Py_CLEAR(arr);
                break;
            }
        }
    }
    Py_DECREF(list);
    if (arr == NULL)
        return NULL;
    shaped = PyObject_CallMethod(arr, "reshape", "(O)", b->shape);
    Py_DECREF(arr);
    return shaped;
}

static PyObject *bytes_get_shape(PyObject *self, void *closure)
{
    (void)closure;
    Py_INCREF(((bytes_object *)self)->shape);
    return ((bytes_object *)self)->shape;
}

static PyObject *bytes_get_offsets(PyObject *self, void *closure)
{
    bytes_object *b = (bytes_object *)self;
    block_object *o = (block_object *)b->owner;
    (void)closure;
    return view_array(b->owner, o->mem, b->offsets, DT_INT64, (size_t)b->n + 1, NULL, 0);
}

static PyObject *bytes_get_data(PyObject *self, void *closure)
{
    bytes_object *b = (bytes_object *)self;
    block_object *o = (block_object *)b->owner;
    (void)closure;
    return view_array(b->owner, o->mem, b->data, DT_UINT8, (size_t)b->offsets[b->n], NULL, 0);
}

static PyObject *bytes_repr(PyObject *self)
{
    bytes_object *b = (bytes_object *)self;
    return PyUnicode_FromFormat("featc.Bytes(shape=%R, %zd values, %lld bytes)", b->shape, b->n,
                                (long long)b->offsets[b->n]);
}

static PyMethodDef bytes_methods[] = {
    {"tolist", bytes_tolist, METH_NOARGS, "The values as a flat list of bytes."},
    {"to_numpy", bytes_to_numpy, METH_NOARGS,
     "The values as a NumPy object array of bytes, in the column's shape."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef bytes_getset[] = {
    {"shape", bytes_get_shape, NULL, "The column's shape (the values are flat, row-major).",
     NULL},
    {"offsets", bytes_get_offsets, NULL,
     "int64 array [n + 1]: value i is data[offsets[i]:offsets[i + 1]].", NULL},
    {"data", bytes_get_data, NULL, "uint8 array: every value's bytes, one after another.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static const fslot bytes_slots[] = {
    {Py_tp_dealloc, FN(bytes_dealloc), NULL},
    {Py_tp_traverse, FN(bytes_traverse), NULL},
    {Py_tp_clear, FN(bytes_clear), NULL},
    {Py_tp_repr, FN(bytes_repr), NULL},
    {Py_tp_methods, NULL, (void *)bytes_methods},
    {Py_tp_getset, NULL, (void *)bytes_getset},
    {Py_sq_length, FN(bytes_len), NULL},
    {Py_sq_item, FN(bytes_item), NULL},
    {Py_tp_doc, NULL,
     (void *)"Bytes values of a batch column: one flat buffer (data) with offsets, in the "
             "column's shape; b[i] is the i-th value (flat) as bytes."},
    {0, NULL, NULL}};

/* ------------------------------------------------------------ errors */

/* The exception of a failed read or parse: DataError(message) with
 * .message (featc's text), .record, .offset, .path and .status. */
/* exc.name = value (a new reference, taken; NULL: an error is set). */
static int set_attr(PyObject *exc, const char *name, PyObject *value)
{
    int rc;
    if (value == NULL)
        return -1;
    rc = PyObject_SetAttrString(exc, name, value);
    Py_DECREF(value);
    return rc;
}

static void raise_error(const fc_error *e, const char *path, uint64_t record, uint64_t offset,
                        int with_record)
{
    PyObject *msg, *exc;
    if (e->status == FC_ERR_IO && e->sys_errno != 0) {
        errno = e->sys_errno;
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, path);
        return;
    }
    if (e->status == FC_ERR_NO_MEMORY) {
        PyErr_Format(PyExc_MemoryError, "%s: %s", path != NULL ? path : "<record>", e->message);
        return;
    }
    if (path == NULL)
        msg = PyUnicode_FromString(e->message);
    else if (with_record)
        msg = PyUnicode_FromFormat("record %llu (offset %llu of %s): %s",
                                   (unsigned long long)record, (unsigned long long)offset, path,
                                   e->message);
    else
        msg = PyUnicode_FromFormat("%s: %s", path, e->message);
    if (msg == NULL)
        return;
    exc = PyObject_CallFunctionObjArgs(g_error, msg, NULL);
    Py_DECREF(msg);
    if (exc == NULL)
        return;
    if (set_attr(exc, "message", PyUnicode_FromString(e->message)) != 0 ||
        set_attr(exc, "record", record != FC_NO_INDEX ? PyLong_FromUnsignedLongLong(record)
                                                      : Py_NewRef(Py_None)) != 0 ||
        set_attr(exc, "offset", offset != FC_NO_INDEX ? PyLong_FromUnsignedLongLong(offset)
                                                      : Py_NewRef(Py_None)) != 0 ||
        set_attr(exc, "path", path != NULL ? PyUnicode_DecodeFSDefault(path)
                                           : Py_NewRef(Py_None)) != 0 ||
        set_attr(exc, "status", PyUnicode_FromString(fc_status_name(e->status))) != 0) {
        Py_DECREF(exc);
        return;
    }
    if (!PyErr_Occurred())
        PyErr_SetObject(g_error, exc);
    Py_DECREF(exc);
}

/* ------------------------------------------------------------ batches to Python */

/* A parsed batch: its block, columns, and packed bytes per column. */
typedef struct batch_out {
    PyObject *owner;  /* the block object */
    const void *base;
    const fc_column *cols;
    packed *packs;    /* per column; mem NULL when it holds no bytes */
    int ragged;       /* VarLen columns as Ragged, else Sparse */
    int single;       /* one record (parse()): no batch dimension */
} batch_out;

static int dtype_of(fc_type t)
{
    return t == FC_TYPE_FLOAT ? DT_FLOAT32 : DT_INT64;
}

/* The values of column i (shape[0..rank); rank 0: flat). */
static PyObject *values_obj(const batch_out *bo, size_t i, fc_type t, const int64_t *shape,
                            unsigned rank)
{
    const fc_column *c = &bo->cols[i];
    if (t == FC_TYPE_BYTES)
        return bytes_from_packed(&bo->packs[i], shape, rank);
    return view_array(bo->owner, bo->base, c->values, dtype_of(t), c->nvalues, shape, rank);
}

static PyObject *i64_obj(const batch_out *bo, const int64_t *p, size_t n)
{
    return view_array(bo->owner, bo->base, p, DT_INT64, n, NULL, 0);
}

/* A dense column: [B, ...]; for one record, its value: the array without
 * the batch dimension, or a scalar. */
static PyObject *dense_obj(const batch_out *bo, size_t i, fc_type t)
{
    const fc_column *c = &bo->cols[i];
    PyObject *v, *item;
    if (!bo->single)
        return values_obj(bo, i, t, c->shape, c->rank);
    if (c->rank > 1)
        return values_obj(bo, i, t, c->shape + 1, c->rank - 1);
    v = values_obj(bo, i, t, NULL, 0); /* [1]: a scalar feature */
    if (v == NULL)
        return NULL;
    item = PySequence_GetItem(v, 0);
    Py_DECREF(v);
    return item;
}

/* Ragged(values, row_splits): row_splits one array, or a tuple of them
 * (outermost first) when there are several. */
static PyObject *ragged_obj(PyObject *values, PyObject **splits, size_t n)
{
    PyObject *r, *sp;
    size_t k;
    if (values == NULL)
        goto fail;
    for (k = 0; k < n; k++)
        if (splits[k] == NULL)
            goto fail;
    if (n == 0) {
        return values;
    } else if (n == 1) {
        sp = splits[0];
    } else {
        sp = PyTuple_New((Py_ssize_t)n);
        if (sp == NULL)
            goto fail;
        for (k = 0; k < n; k++)
            PyTuple_SetItem(sp, (Py_ssize_t)k, splits[k]);
    }
    r = PyStructSequence_New((PyTypeObject *)g_ragged_type);
    if (r == NULL) {
        Py_DECREF(values);
        Py_DECREF(sp);
        return NULL;
    }
    PyStructSequence_SetItem(r, 0, values);
    PyStructSequence_SetItem(r, 1, sp);
    return r;
fail:
    Py_XDECREF(values);
    for (k = 0; k < n; k++)
        Py_XDECREF(splits[k]);
    return NULL;
}

/* Sparse(indices [N, width], values, dense_shape); for one record the
 * batch column of the indices and of the shape are left out. */
static PyObject *sparse_obj(const batch_out *bo, size_t i, fc_type t, unsigned width)
{
    const fc_column *c = &bo->cols[i];
    int64_t ishape[2];
    PyObject *r, *ind, *vals, *shp;
    unsigned skip = bo->single ? 1u : 0u;
    ishape[0] = (int64_t)c->nindices;
    ishape[1] = (int64_t)width;
    ind = view_array(bo->owner, bo->base, c->indices, DT_INT64, c->nindices * width, ishape, 2);
    if (ind != NULL && skip) {
        PyObject *sl, *all = PySlice_New(NULL, NULL, NULL), *tail = NULL, *one = PyLong_FromLong(1);
        tail = one != NULL ? PySlice_New(one, NULL, NULL) : NULL;
        sl = all != NULL && tail != NULL ? PyTuple_Pack(2, all, tail) : NULL;
        Py_XDECREF(all);
        Py_XDECREF(tail);
        Py_XDECREF(one);
        if (sl == NULL) {
            Py_CLEAR(ind);
        } else {
            PyObject *cut = PyObject_GetItem(ind, sl);
            Py_DECREF(sl);
            Py_DECREF(ind);
            ind = cut;
        }
    }
    vals = values_obj(bo, i, t, NULL, 0);
    shp = shape_array(c->shape + skip, c->rank - skip);
    if (ind == NULL || vals == NULL || shp == NULL) {
        Py_XDECREF(ind);
        Py_XDECREF(vals);
        Py_XDECREF(shp);
        return NULL;
    }
    r = PyStructSequence_New((PyTypeObject *)g_sparse_type);
    if (r == NULL) {
        Py_DECREF(ind);
        Py_DECREF(vals);
        Py_DECREF(shp);
        return NULL;
    }
    PyStructSequence_SetItem(r, 0, ind);
    PyStructSequence_SetItem(r, 1, vals);
    PyStructSequence_SetItem(r, 2, shp);
    return r;
}

/* A ragged column: values and splits over the batch (row_splits), for a
 * feature list over frames (inner_splits), then per partition; for one
 * record the batch's splits are left out. */
static PyObject *ragged_col(const batch_out *bo, size_t i, fc_type t, const fc_field_extra *x,
                            int list)
{
    const fc_column *c = &bo->cols[i];
    PyObject *splits[FC_MAX_RANK + 2];
    size_t n = 0;
    unsigned q, nparts = x != NULL ? x->nparts : 0;
    if (!bo->single)
        splits[n++] = i64_obj(bo, c->row_splits, (size_t)c->shape[0] + 1);
    if (list)
        splits[n++] = i64_obj(bo, c->inner_splits, c->nframes + 1);
    for (q = 0; q < nparts; q++)
        splits[n++] = i64_obj(bo, c->part_splits[q], c->part_nsplits[q]);
    return ragged_obj(values_obj(bo, i, t, NULL, 0), splits, n);
}

/* A feature key as a dict key: UTF-8, other bytes as lone surrogates
 * (PEP 383), as the JSON driver spells them. */
static PyObject *key_str(const char *key, size_t n)
{
    return PyUnicode_DecodeUTF8(key, (Py_ssize_t)n, "surrogateescape");
}

/* d[key + suffix] = v (v taken). */
static int put(PyObject *d, const char *key, size_t key_len, const char *suffix, PyObject *v)
{
    PyObject *k;
    int rc;
    if (v == NULL)
        return -1;
    k = key_str(key, key_len);
    if (k != NULL && suffix != NULL) {
        PyObject *s = PyUnicode_FromString(suffix), *ks;
        ks = s != NULL ? PyUnicode_Concat(k, s) : NULL;
        Py_XDECREF(s);
        Py_DECREF(k);
        k = ks;
    }
    if (k == NULL) {
        Py_DECREF(v);
        return -1;
    }
    rc = PyDict_SetItem(d, k, v);
    Py_DECREF(k);
    Py_DECREF(v);
    return rc;
}

/* A hashed feature's bucket ids (KEY/buckets, as the values) and hot
 * vectors (KEY/one_hot [..., N], KEY/multi_hot [B, N]). */
static int put_hashed(const batch_out *bo, PyObject *d, const char *key, size_t key_len,
                      size_t i, const fc_field_extra *x, int dense)
{
    const fc_column *c = &bo->cols[i];
    int64_t shape[FC_MAX_RANK + 3];
    unsigned rank, skip = bo->single ? 1u : 0u;
    PyObject *v;
    if (x == NULL || x->hash_buckets == 0)
        return 0;
    if (dense)
        v = view_array(bo->owner, bo->base, c->buckets, DT_INT64, c->nvalues, c->shape + skip,
                       c->rank - skip);
    else
        v = i64_obj(bo, c->buckets, c->nvalues);
    if (put(d, key, key_len, "/buckets", v) != 0)
        return -1;
    if (c->hot == NULL) /* feature lists: bucket ids only */
        return 0;
    if (x->hot == FC_HOT_ONE) {
        memcpy(shape, c->shape, c->rank * sizeof shape[0]);
        shape[c->rank] = (int64_t)x->hash_buckets;
        rank = c->rank + 1;
        v = view_array(bo->owner, bo->base, c->hot, DT_FLOAT32,
                       c->nvalues * x->hash_buckets, shape + skip, rank - skip);
        return put(d, key, key_len, "/one_hot", v);
    }
    if (x->hot == FC_HOT_MULTI) {
        shape[0] = c->shape[0];
        shape[1] = (int64_t)x->hash_buckets;
        v = view_array(bo->owner, bo->base, c->hot, DT_FLOAT32,
                       (size_t)c->shape[0] * x->hash_buckets, shape + skip, 2 - skip);
        return put(d, key, key_len, "/multi_hot", v);
    }
    return 0;
}

/* An Example's features, or a SequenceExample's context: key -> value. */
static int put_fields(const batch_out *bo, PyObject *d, const fc_field_desc *fields, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const fc_field_desc *f = &fields[i];
        PyObject *v;
        int dense = f->kind == FC_KIND_FIXED || f->kind == FC_KIND_ROWS;
        if (f->extra->hidden)
            continue;
        switch (f->kind) {
        case FC_KIND_VARLEN:
            if (bo->single)
                v = values_obj(bo, i, f->type, NULL, 0);
            else if (bo->ragged)
                v = ragged_col(bo, i, f->type, NULL, 0);
            else
                v = sparse_obj(bo, i, f->type, 2);
            break;
        case FC_KIND_SPARSE: v = sparse_obj(bo, i, f->type, f->rank + 1); break;
        case FC_KIND_RAGGED: v = ragged_col(bo, i, f->type, f->extra, 0); break;
        default: v = dense_obj(bo, i, f->type); break;
        }
        if (put(d, f->key, f->key_len, NULL, v) != 0 ||
            put_hashed(bo, d, f->key, f->key_len, i, f->extra, dense) != 0)
            return -1;
    }
    return 0;
}

/* A SequenceExample's feature lists (and the lengths of the fixed-frame
 * ones, TF's feature_list_lengths), columns from ncontext on. */
static int put_lists(const batch_out *bo, PyObject *d, PyObject *lengths, const fc_seq_desc *sd)
{
    size_t j;
    for (j = 0; j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        size_t i = sd->ncontext + j;
        const fc_column *c = &bo->cols[i];
        PyObject *v;
        if (l->extra != NULL && l->extra->hidden)
            continue;
        if (l->kind == FC_KIND_FIXED) {
            v = dense_obj(bo, i, l->type);
            if (!bo->single &&
                put(lengths, l->key, l->key_len, NULL,
                    i64_obj(bo, c->lengths, (size_t)c->shape[0])) != 0) {
                Py_XDECREF(v);
                return -1;
            }
        } else if (l->kind == FC_KIND_VARLEN && !bo->ragged && !bo->single) {
            v = sparse_obj(bo, i, l->type, 3);
        } else {
            v = ragged_col(bo, i, l->type, l->kind == FC_KIND_RAGGED ? l->extra : NULL, 1);
        }
        if (put(d, l->key, l->key_len, NULL, v) != 0 ||
            put_hashed(bo, d, l->key, l->key_len, i, l->extra, l->kind == FC_KIND_FIXED) != 0)
            return -1;
    }
    return 0;
}

/* The batch as parse_example gives it (a dict), or for a SequenceExample
 * as parse_sequence_example does: (context, feature_lists, lengths); one
 * record: (context, feature_lists). */
static PyObject *batch_object(const batch_out *bo, const fcpy_message *m)
{
    PyObject *ctx = PyDict_New(), *lists = NULL, *lengths = NULL;
    if (ctx == NULL)
        return NULL;
    if (m->md != NULL) {
        if (put_fields(bo, ctx, m->md->fields, m->md->nfields) != 0) {
            Py_DECREF(ctx);
            return NULL;
        }
        return ctx;
    }
    lists = PyDict_New();
    lengths = PyDict_New();
    if (lists == NULL || lengths == NULL ||
        put_fields(bo, ctx, m->sd->context, m->sd->ncontext) != 0 ||
        put_lists(bo, lists, lengths, m->sd) != 0) {
        Py_DECREF(ctx);
        Py_XDECREF(lists);
        Py_XDECREF(lengths);
        return NULL;
    }
    if (bo->single) {
        Py_DECREF(lengths);
        return Py_BuildValue("(NN)", ctx, lists);
    }
    return Py_BuildValue("(NNN)", ctx, lists, lengths);
}

/* ------------------------------------------------------------ parsing a batch */

static size_t ncols_of(const fcpy_message *m)
{
    return m->md != NULL ? m->md->nfields : m->sd->ncontext + m->sd->nlists;
}

static size_t bind(const fcpy_message *m, fc_column *cols, size_t b, unsigned forms, void *mem,
                   size_t size)
{
    return m->md != NULL ? fc_batch_bind(m->md, cols, b, forms, mem, size)
                         : fc_batch_bind_seq(m->sd, cols, b, forms, mem, size);
}

/* Which column values are bytes (to pack). */
static fc_type col_type(const fcpy_message *m, size_t i)
{
    if (m->md != NULL)
        return m->md->fields[i].type;
    return i < m->sd->ncontext ? m->sd->context[i].type : m->sd->lists[i - m->sd->ncontext].type;
}

/* Parses records[0..n) into a new block and packs its bytes columns;
 * without the GIL.  FC_OK, FC_ERR_NO_MEMORY, or the parse's error. */
typedef struct batch_work {
    const fcpy_message *m;
    const fc_message_desc *md; /* m->md, or a copy that parses as one record */
    size_t ncols, cap;
    unsigned forms;
    fc_column *cols;
    packed *packs;
    void *scratch;
    void *mem;
    size_t need;
} batch_work;

static fc_status batch_run(batch_work *w, const fc_bytes *records, size_t n, fc_error *err)
{
    size_t i;
    fc_status rc;
    w->mem = aligned_alloc16(w->need);
    if (w->mem == NULL) {
        fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "out of memory for a batch");
        return FC_ERR_NO_MEMORY;
    }
    memset(w->cols, 0, w->ncols * sizeof *w->cols);
    bind(w->m, w->cols, w->cap, w->forms, w->mem, w->need);
    rc = w->md != NULL ? (fc_status)fc_batch_parse(w->md, w->cols, w->scratch, records, n, err)
                       : (fc_status)fc_batch_parse_seq(w->m->sd, w->cols, w->scratch, records,
                                                       n, err);
    for (i = 0; i < w->ncols && rc == FC_OK; i++) {
        w->packs[i].mem = NULL;
        if (col_type(w->m, i) == FC_TYPE_BYTES &&
            pack_bytes(&w->packs[i], (const fc_bytes *)w->cols[i].values, w->cols[i].nvalues) != 0) {
            fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "out of memory for a batch's bytes values");
            rc = FC_ERR_NO_MEMORY;
        }
    }
    return rc;
}

static void batch_release(batch_work *w)
{
    size_t i;
    for (i = 0; i < w->ncols; i++) {
        free(w->packs[i].mem);
        w->packs[i].mem = NULL;
    }
    free(w->mem);
    w->mem = NULL;
}

static int batch_work_init(batch_work *w, const fcpy_message *m, size_t cap, unsigned forms)
{
    memset(w, 0, sizeof *w);
    w->m = m;
    w->md = m->md;
    w->ncols = ncols_of(m);
    w->cap = cap;
    w->forms = forms;
    w->need = bind(m, NULL, cap, forms, NULL, 0);
    w->cols = (fc_column *)calloc(w->ncols + 1, sizeof *w->cols);
    w->packs = (packed *)calloc(w->ncols + 1, sizeof *w->packs);
    w->scratch = calloc(1, m->md != NULL ? m->md->size : m->sd->size);
    if (w->need == 0 || w->cols == NULL || w->packs == NULL || w->scratch == NULL) {
        PyErr_Format(PyExc_MemoryError,
                     "a batch of %zu records at the spec's bounds needs %zu bytes", cap, w->need);
        return -1;
    }
    return 0;
}

static void batch_work_free(batch_work *w)
{
    batch_release(w);
    free(w->cols);
    free(w->packs);
    free(w->scratch);
    w->cols = NULL;
    w->packs = NULL;
    w->scratch = NULL;
}

/* The Python batch of a batch_run that succeeded; the memory moves into
 * Python objects. */
static PyObject *batch_wrap(batch_work *w, int ragged, int single)
{
    batch_out bo;
    PyObject *r;
    bo.owner = block_new(w->mem, w->need);
    w->mem = NULL;
    if (bo.owner == NULL) {
        batch_release(w);
        return NULL;
    }
    bo.base = ((block_object *)bo.owner)->mem;
    bo.cols = w->cols;
    bo.packs = w->packs;
    bo.ragged = ragged;
    bo.single = single;
    r = batch_object(&bo, w->m);
    Py_DECREF(bo.owner);
    batch_release(w); /* packs not taken (after an error) */
    return r;
}

/* ------------------------------------------------------------ options */

static const fcpy_message *find_message(PyObject *name)
{
    size_t i;
    const char *s;
    if (name == NULL || name == Py_None)
        return &g_spec->messages[0];
    if (!PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "message must be a str");
        return NULL;
    }
    s = PyUnicode_AsUTF8AndSize(name, NULL);
    if (s == NULL)
        return NULL;
    for (i = 0; i < g_spec->nmessages; i++)
        if (strcmp(g_spec->messages[i].name, s) == 0)
            return &g_spec->messages[i];
    PyErr_Format(PyExc_ValueError, "no message named %R in %s", name, g_spec->spec);
    return NULL;
}

/* s is one of the words (index into *out), or a ValueError naming them. */
static int word_option(PyObject *s, const char *what, const char *const *words, int *out)
{
    const char *v;
    int k;
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str, not %S", what, (PyObject *)Py_TYPE(s));
        return -1;
    }
    v = PyUnicode_AsUTF8AndSize(s, NULL);
    if (v == NULL)
        return -1;
    for (k = 0; words[k] != NULL; k++)
        if (strcmp(v, words[k]) == 0) {
            *out = k;
            return 0;
        }
    PyErr_Format(PyExc_ValueError, "%s must be one of %s, not %R", what, words[k + 1], s);
    return -1;
}

static int size_option(PyObject *v, const char *what, Py_ssize_t lo, Py_ssize_t hi, size_t *out)
{
    Py_ssize_t n;
    if (!PyLong_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, not %S", what, (PyObject *)Py_TYPE(v));
        return -1;
    }
    n = PyLong_AsSsize_t(v);
    if (n == -1 && PyErr_Occurred())
        PyErr_Clear(); /* too large either way: n = -1 is out of range */
    if (n < lo || n > hi) {
        PyErr_Format(PyExc_ValueError, "%s must be from %zd to %zd, not %R", what, lo, hi, v);
        return -1;
    }
    *out = (size_t)n;
    return 0;
}

/* A pair of ints (a, b) with 0 <= a, into *a and *b. */
static int pair_option(PyObject *v, const char *what, uint64_t *a, uint64_t *b)
{
    PyObject *x, *y;
    unsigned long long p, q;
    if (!PyTuple_Check(v) || PyTuple_Size(v) != 2) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple of two ints", what);
        return -1;
    }
    x = PyTuple_GetItem(v, 0);
    y = PyTuple_GetItem(v, 1);
    if (!PyLong_Check(x) || !(PyLong_Check(y) || y == Py_None)) {
        PyErr_Format(PyExc_TypeError, "%s must be a tuple of two ints", what);
        return -1;
    }
    p = PyLong_AsUnsignedLongLong(x);
    q = y == Py_None ? UINT64_MAX : PyLong_AsUnsignedLongLong(y);
    if (PyErr_Occurred()) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s %R: out of range", what, v);
        return -1;
    }
    *a = p;
    *b = q;
    return 0;
}

/* ------------------------------------------------------------ the reader */

/* A batch on its way: the records gathered for it (views into the open
 * source, or copies in data), then its parse.  The reader keeps a ring of
 * them: one when it parses on the caller's thread (threads=1); 2 x threads
 * when worker threads parse while the caller's thread reads the records of
 * the next batches.  Either way the batches are the same, in the same
 * order: records are framed (and their CRCs checked) in order on the
 * caller's thread, and only whole batches are handed to the workers. */
enum { SLOT_FREE, SLOT_QUEUED, SLOT_PARSING, SLOT_PARSED };

typedef struct slot {
    int state;            /* written under the reader's mutex when it has threads */
    size_t n, first_here; /* records; the first read from the open source */
    fc_bytes *views;
    size_t *at;           /* offset in data of a copied record; SIZE_MAX: in place */
    uint64_t *index, *offset;
    Py_ssize_t *src;
    unsigned char *data;
    size_t used, cap;
    Py_ssize_t live;      /* the source its in-place records are in (it stays open), or -1 */
    batch_work w;
    fc_status status;     /* the parse's */
    fc_error err;
    int input_failed;     /* the input failed after its records: raised after them */
    fc_error input_err;
    Py_ssize_t input_src;
} slot;

typedef struct {
    PyObject_HEAD
    const fcpy_message *m;
    PyObject *sources;    /* tuple */
    PyObject *names;      /* tuple of bytes: each source's name in messages */
    PyObject *held;       /* what the open source reads (a file object's buffer) */
    PyObject *pull_src;   /* a file object without a buffer: read in pieces (pull_read) */
    PyObject *pull_type, *pull_value, *pull_tb; /* the exception its read() raised */
    PyObject *index_path; /* bytes, or NULL */
    Py_ssize_t next;      /* the next source to open */
    Py_ssize_t cur;       /* the open one */
    int open;
    int in_place;         /* its records stay valid until it closes */
    uint64_t released;    /* a mapped file's bytes before this are given back */
    int have_view;
    Py_buffer view;
    fc_input in;
    fc_input_options opt;
    size_t bsize;
    int ragged;
    int done;             /* every source has been read */
    int blocked;          /* a source failed to open after records: raised once they are out */
    /* the ring: slots[head % depth] is handed out next; queued slots were
     * gathered (head <= taken <= queued; taken: by the threads) */
    slot *slots;
    size_t depth;
    unsigned long long head, queued, taken;
    /* threads=N: N - 1 worker threads, and the caller's thread parses
     * while it waits for one */
    unsigned started;
    pthread_t *threads;
    int have_sync, stop, waiting;
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* the workers': a slot was queued, or stop */
    pthread_cond_t done_cv; /* the caller's (waiting): a slot was parsed */
    pid_t pid;
    unsigned long long batches, records;
} reader_object;

static void slot_parse(slot *t)
{
    fc_error_clear(&t->err);
    t->status = t->n > 0 ? batch_run(&t->w, t->views, t->n, &t->err) : FC_OK;
}

/* Parses the next queued slot; called and returns with the mutex held. */
static void take_and_parse(reader_object *r)
{
    slot *t = &r->slots[r->taken++ % r->depth];
    t->state = SLOT_PARSING;
    pthread_mutex_unlock(&r->mu);
    slot_parse(t);
    pthread_mutex_lock(&r->mu);
    t->state = SLOT_PARSED;
    if (r->waiting)
        pthread_cond_signal(&r->done_cv);
}

/* A worker thread: parses the queued slots in turn. */
static void *parse_main(void *arg)
{
    reader_object *r = (reader_object *)arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->stop && r->taken == r->queued)
            pthread_cond_wait(&r->work_cv, &r->mu);
        if (r->stop)
            break;
        take_and_parse(r);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* The caller's thread, waiting for a slot (with the mutex held, without
 * the GIL): it parses a queued slot if there is one, else sleeps until a
 * worker has parsed one. */
static void help_or_wait(reader_object *r)
{
    if (r->taken < r->queued) {
        take_and_parse(r);
        return;
    }
    r->waiting = 1;
    pthread_cond_wait(&r->done_cv, &r->mu);
    r->waiting = 0;
}

/* Stops and joins the threads; queued slots not yet taken stay unparsed. */
static void reader_stop_threads(reader_object *r)
{
    unsigned i;
    if (!r->have_sync)
        return;
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_broadcast(&r->work_cv);
    pthread_mutex_unlock(&r->mu);
    Py_BEGIN_ALLOW_THREADS
    for (i = 0; i < r->started; i++)
        pthread_join(r->threads[i], NULL);
    Py_END_ALLOW_THREADS
    r->started = 0;
}

/* Until no queued slot reads the open source in place (it is about to
 * close); without the GIL. */
static void wait_live(reader_object *r)
{
    size_t i;
    if (!r->have_sync)
        return; /* the one slot is the one being gathered */
    pthread_mutex_lock(&r->mu);
    for (;;) {
        for (i = 0; i < r->depth; i++) {
            const slot *t = &r->slots[i];
            if (t->live == r->cur && (t->state == SLOT_QUEUED || t->state == SLOT_PARSING))
                break;
        }
        if (i == r->depth || r->stop)
            break;
        help_or_wait(r);
    }
    pthread_mutex_unlock(&r->mu);
}

static void reader_close_source(reader_object *r)
{
    size_t i;
    if (!r->open)
        return;
    Py_BEGIN_ALLOW_THREADS
    wait_live(r);
    fc_input_close(&r->in);
    Py_END_ALLOW_THREADS
    for (i = 0; i < r->depth; i++)
        if (r->slots[i].live == r->cur)
            r->slots[i].live = -1;
    if (r->have_view)
        PyBuffer_Release(&r->view);
    r->have_view = 0;
    Py_CLEAR(r->held);
    Py_CLEAR(r->pull_src);
    r->open = 0;
}

/* The pull source of a file object without a buffer (fc_input_open_pull):
 * read(n), with the GIL taken for the call, so that a file object of any
 * size is read in pieces of the reader's buffer.  An exception read()
 * raises is kept and raised in place of the read's error. */
static fc_status pull_read(void *ctx, void *buf, size_t n, size_t *got, fc_error *err)
{
    reader_object *r = (reader_object *)ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *b = PyObject_CallMethod(r->pull_src, "read", "n",
                                      (Py_ssize_t)(n > (size_t)PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX
                                                                             : n));
    fc_status st = FC_OK;
    *got = 0;
    if (b != NULL && !PyBytes_Check(b)) {
        PyErr_Format(PyExc_TypeError, "read() gave %S, not bytes (open the file in binary mode)",
                     (PyObject *)Py_TYPE(b));
        Py_CLEAR(b);
    }
    if (b != NULL && (size_t)PyBytes_Size(b) > n) {
        PyErr_Format(PyExc_ValueError, "read(%zu) gave %zd bytes", n, PyBytes_Size(b));
        Py_CLEAR(b);
    }
    if (b == NULL) {
        fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "read() of the file object failed");
        if (r->pull_type == NULL)
            PyErr_Fetch(&r->pull_type, &r->pull_value, &r->pull_tb);
        else
            PyErr_Clear();
        st = FC_ERR_IO;
    } else {
        *got = (size_t)PyBytes_Size(b);
        if (*got > 0)
            memcpy(buf, PyBytes_AsString(b), *got);
        Py_DECREF(b);
    }
    PyGILState_Release(g);
    return st;
}

/* Raises the error of a source that failed: the exception its read()
 * raised, when that is what failed it. */
static void raise_input_error(reader_object *r, const fc_error *e, Py_ssize_t src)
{
    if (r->pull_type != NULL && e->status == FC_ERR_IO) {
        PyErr_Restore(r->pull_type, r->pull_value, r->pull_tb);
        r->pull_type = r->pull_value = r->pull_tb = NULL;
        return;
    }
    if (e->status == FC_ERR_IO && e->sys_errno != 0 && r->open && r->in.index_path != NULL &&
        (strncmp(e->message, "index ", 6) == 0 || strncmp(e->message, "member index ", 13) == 0)) {
        /* the index file failed to open: name it, not the data */
        errno = e->sys_errno;
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, r->in.index_path);
        return;
    }
    raise_error(e, PyBytes_AsString(PyTuple_GetItem(r->names, src)), e->record, e->offset, 0);
}

static const char *source_name(reader_object *r, Py_ssize_t k)
{
    return PyBytes_AsString(PyTuple_GetItem(r->names, k));
}

/* Opens sources[next] for the records of slot t: a path, a bytes-like
 * object, or a binary file object (its buffer when it has one, as BytesIO
 * does, else what read() gives). */
static int reader_open_source(reader_object *r, slot *t)
{
    PyObject *s = PyTuple_GetItem(r->sources, r->next);
    const char *name = source_name(r, r->next);
    fc_status st = FC_OK;
    r->cur = r->next++;
    t->first_here = t->n;
    r->in_place = 0;
    r->released = 0;
    if (!PyObject_CheckBuffer(s) && !PyObject_HasAttrString(s, "getbuffer") &&
        PyObject_HasAttrString(s, "read")) {
        /* read in pieces: the memory is the largest record's, not the file's */
        if (r->opt.part != FC_PART_ALL) {
            PyErr_Format(PyExc_ValueError,
                         "%s: a part (split=, byte_range=) of a file object needs a path or "
                         "its bytes: a file object is read from where it is, in order", name);
            return -1;
        }
        Py_INCREF(s);
        r->pull_src = s;
        st = fc_input_open_pull(&r->in, name, pull_read, r, &r->opt);
    } else if (!PyObject_CheckBuffer(s) && PyObject_HasAttrString(s, "getbuffer")) {
        PyObject *b = PyObject_CallMethod(s, "getbuffer", NULL);
        if (b == NULL)
            return -1;
        r->held = b;
        s = b;
    }
    if (r->pull_src != NULL) {
        /* opened above */
    } else if (r->held != NULL || PyObject_CheckBuffer(s)) {
        if (PyObject_GetBuffer(s, &r->view, PyBUF_SIMPLE) != 0) {
            Py_CLEAR(r->held);
            return -1;
        }
        r->have_view = 1;
        Py_BEGIN_ALLOW_THREADS
        st = fc_input_open_mem(&r->in, name, r->view.buf, (size_t)r->view.len, &r->opt);
        Py_END_ALLOW_THREADS
    } else {
        Py_BEGIN_ALLOW_THREADS
        st = fc_input_open(&r->in, name, &r->opt);
        Py_END_ALLOW_THREADS
    }
    r->open = 1;
    if (st != FC_OK) {
        raise_input_error(r, &r->in.err, r->cur);
        reader_close_source(r);
        return -1;
    }
    r->in_place = r->in.data != NULL && fc_reader_compression(&r->in.reader) == FC_COMPRESSION_NONE;
    return 0;
}

/* Room for k more bytes of copied records in t. */
static int reserve(slot *t, size_t k)
{
    size_t cap;
    unsigned char *d;
    if (k <= t->cap - t->used)
        return 0;
    if (k > SIZE_MAX / 2 - t->used)
        return -1;
    cap = t->cap * 2 > t->used + k ? t->cap * 2 : t->used + k;
    d = (unsigned char *)realloc(t->data, cap > 0 ? cap : 1);
    if (d == NULL)
        return -1;
    t->data = d;
    t->cap = cap;
    return 0;
}

/* Records of t that are views into the open source become copies (before
 * it closes). */
static int slot_materialize(slot *t)
{
    size_t k;
    for (k = t->first_here; k < t->n; k++) {
        if (t->at[k] != SIZE_MAX)
            continue;
        if (reserve(t, t->views[k].size) != 0)
            return -1;
        if (t->views[k].size > 0)
            memcpy(t->data + t->used, t->views[k].data, t->views[k].size);
        t->at[k] = t->used;
        t->used += t->views[k].size;
    }
    t->live = -1;
    return 0;
}

/* Gives back the pages of a mapped file that every batch has been parsed
 * past: they are the file's, not the process's, but count in its resident
 * size while mapped (a 1 GB file read to its end would show 1 GB).  Never
 * a caller's buffer. */
static void release_read(reader_object *r)
{
    long page = sysconf(_SC_PAGESIZE);
    uint64_t upto;
    size_t i;
    if (!r->open || !r->in_place || r->in.map.data == NULL || page <= 0)
        return;
    upto = fc_reader_offset(&r->in.reader);
    for (i = 0; i < r->depth; i++) {
        const slot *t = &r->slots[i];
        if (t->live == r->cur && t->first_here < t->n && t->offset[t->first_here] < upto)
            upto = t->offset[t->first_here];
    }
    upto = upto / (uint64_t)page * (uint64_t)page;
    if (upto >= r->released + ((uint64_t)16 << 20) && upto <= r->in.size) {
        (void)madvise((void *)(uintptr_t)(r->in.map.data + r->released),
                      (size_t)(upto - r->released), MADV_DONTNEED);
        r->released = upto;
    }
}

/* Reads records of the open source into t until it is full (FC_OK), the
 * source ends (FC_END) or fails; without the GIL. */
static fc_status reader_gather(reader_object *r, slot *t)
{
    fc_record rec;
    while (t->n < r->bsize) {
        size_t k = t->n;
        fc_status s = fc_input_next(&r->in, &rec);
        if (s != FC_OK)
            return s;
        if (r->in_place) {
            t->views[k].data = rec.data;
            t->at[k] = SIZE_MAX;
            t->live = r->cur;
        } else {
            if (reserve(t, rec.length) != 0) {
                fc_msg m = fc_error_begin(&r->in.err, FC_ERR_NO_MEMORY, rec.index, rec.offset);
                fc_msg_str(&m, "out of memory for the records of a batch");
                return FC_ERR_NO_MEMORY;
            }
            if (rec.length > 0)
                memcpy(t->data + t->used, rec.data, rec.length);
            t->at[k] = t->used;
            t->used += rec.length;
        }
        t->views[k].size = rec.length;
        t->index[k] = rec.index;
        t->offset[k] = rec.offset;
        t->src[k] = r->cur;
        t->n++;
    }
    return FC_OK;
}

/* Hands t (gathered) to the parse: to the threads, or to reader_next. */
static void slot_queue(reader_object *r, slot *t)
{
    size_t k;
    for (k = 0; k < t->n; k++)
        if (t->at[k] != SIZE_MAX)
            t->views[k].data = t->data + t->at[k];
    if (r->have_sync) {
        pthread_mutex_lock(&r->mu);
        t->state = SLOT_QUEUED;
        r->queued++;
        pthread_cond_signal(&r->work_cv);
        pthread_mutex_unlock(&r->mu);
    } else {
        t->state = SLOT_QUEUED;
        r->queued++;
    }
}

/* Gathers batches into the free slots of the ring, in order, and queues
 * them.  -1 with an exception set: nothing is queued and nothing can be. */
static int reader_fill(reader_object *r)
{
    while (!r->done && !r->blocked && r->queued - r->head < r->depth) {
        slot *t = &r->slots[r->queued % r->depth];
        fc_status s;
        while (t->n < r->bsize) {
            if (!r->open) {
                if (r->next >= PyTuple_Size(r->sources)) {
                    r->done = 1;
                    break;
                }
                if (reader_open_source(r, t) != 0) {
                    if (t->n == 0 && r->queued == r->head)
                        return -1;
                    /* the records before it first, the error after them */
                    PyErr_Clear();
                    r->next--;
                    r->blocked = 1;
                    break;
                }
            }
            Py_BEGIN_ALLOW_THREADS
            s = reader_gather(r, t);
            Py_END_ALLOW_THREADS
            if (s == FC_OK)
                break;
            if (slot_materialize(t) != 0) {
                t->n = t->first_here;
                reader_close_source(r);
                r->done = 1;
                PyErr_NoMemory();
                return -1;
            }
            if (s != FC_END) {
                t->input_failed = 1;
                t->input_err = r->in.err;
                t->input_src = r->cur;
                reader_close_source(r);
                break;
            }
            reader_close_source(r);
        }
        if (t->n == 0 && !t->input_failed)
            break; /* the end, or blocked */
        slot_queue(r, t);
    }
    return 0;
}

/* The head slot, handed out: free for the next batch. */
static void slot_clear(slot *t)
{
    t->state = SLOT_FREE;
    t->n = 0;
    t->first_here = 0;
    t->used = 0;
    t->live = -1;
    t->input_failed = 0;
}

static PyObject *reader_next(PyObject *self)
{
    reader_object *r = (reader_object *)self;
    slot *t;
    size_t n;
    PyObject *out = NULL;
    if (r->have_sync && r->pid != getpid()) {
        PyErr_SetString(PyExc_RuntimeError,
                        "a reader with threads cannot be used in a child process (fork)");
        return NULL;
    }
    if (reader_fill(r) != 0)
        return NULL;
    if (r->head == r->queued) {
        if (!r->blocked)
            return NULL; /* StopIteration */
        r->blocked = 0; /* open it again: its error now, or its records */
        if (reader_fill(r) != 0 || r->head == r->queued)
            return NULL;
    }
    t = &r->slots[r->head % r->depth];
    if (!r->have_sync) {
        if (t->state == SLOT_QUEUED) {
            Py_BEGIN_ALLOW_THREADS
            slot_parse(t);
            Py_END_ALLOW_THREADS
            t->state = SLOT_PARSED;
        }
    } else {
        Py_BEGIN_ALLOW_THREADS
        pthread_mutex_lock(&r->mu);
        while (t->state != SLOT_PARSED)
            help_or_wait(r);
        pthread_mutex_unlock(&r->mu);
        Py_END_ALLOW_THREADS
    }
    n = t->n;
    if (n == 0) {
        /* what remains of a slot whose input failed after its records */
        raise_input_error(r, &t->input_err, t->input_src);
    } else if (t->status != FC_OK) {
        fc_error *err = &t->err;
        batch_release(&t->w);
        if (err->record < n)
            raise_error(err, source_name(r, t->src[err->record]), t->index[err->record],
                        t->offset[err->record], 1);
        else
            raise_error(err, source_name(r, t->src[0]), FC_NO_INDEX, FC_NO_INDEX, 0);
    } else {
        out = batch_wrap(&t->w, r->ragged, 0);
        if (out != NULL) {
            r->batches++;
            r->records += n;
        }
    }
    if (n > 0 && t->input_failed) {
        t->n = 0; /* its error next time */
        t->live = -1;
    } else {
        slot_clear(t);
        r->head++;
    }
    release_read(r);
    return out;
}

static int reader_traverse(PyObject *self, visitproc visit, void *arg)
{
    reader_object *r = (reader_object *)self;
    Py_VISIT(r->sources);
    Py_VISIT(r->names);
    Py_VISIT(r->held);
    Py_VISIT(r->pull_src);
    Py_VISIT(r->pull_value);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

/* Stops the threads, closes the open source and drops the batches in the
 * ring: iteration ends. */
static void reader_shut(reader_object *r)
{
    size_t i;
    reader_stop_threads(r);
    reader_close_source(r);
    for (i = 0; r->slots != NULL && i < r->depth; i++) {
        batch_release(&r->slots[i].w);
        slot_clear(&r->slots[i]);
    }
    r->head = r->queued = r->taken = 0;
    r->done = 1;
    r->blocked = 0;
}

static PyObject *reader_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    reader_shut((reader_object *)self);
    Py_RETURN_NONE;
}

static void reader_dealloc(PyObject *self)
{
    reader_object *r = (reader_object *)self;
    PyTypeObject *tp = Py_TYPE(self);
    size_t i;
    PyObject_GC_UnTrack(self);
    reader_shut(r);
    Py_CLEAR(r->sources);
    Py_CLEAR(r->names);
    Py_CLEAR(r->index_path);
    Py_CLEAR(r->pull_type);
    Py_CLEAR(r->pull_value);
    Py_CLEAR(r->pull_tb);
    for (i = 0; r->slots != NULL && i < r->depth; i++) {
        slot *t = &r->slots[i];
        batch_work_free(&t->w);
        free(t->views);
        free(t->at);
        free(t->index);
        free(t->offset);
        free(t->src);
        free(t->data);
    }
    free(r->slots);
    free(r->threads);
    if (r->have_sync) {
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->work_cv);
        pthread_cond_destroy(&r->done_cv);
    }
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

static PyObject *reader_enter(PyObject *self, PyObject *unused)
{
    (void)unused;
    return Py_NewRef(self);
}

static PyObject *reader_exit(PyObject *self, PyObject *args)
{
    (void)args;
    return reader_close(self, NULL);
}

static PyObject *reader_get_records(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(((reader_object *)self)->records);
}

static PyObject *reader_get_batches(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(((reader_object *)self)->batches);
}

static PyMethodDef reader_methods[] = {
    {"close", reader_close, METH_NOARGS, "Closes the open file; iteration ends."},
    {"__enter__", reader_enter, METH_NOARGS, NULL},
    {"__exit__", reader_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef reader_getset[] = {
    {"records", reader_get_records, NULL, "Records in the batches handed out so far.", NULL},
    {"batches", reader_get_batches, NULL, "Batches handed out so far.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static const fslot reader_slots[] = {
    {Py_tp_dealloc, FN(reader_dealloc), NULL},
    {Py_tp_traverse, FN(reader_traverse), NULL},
    {Py_tp_iter, FN(PyObject_SelfIter), NULL},
    {Py_tp_iternext, FN(reader_next), NULL},
    {Py_tp_methods, NULL, (void *)reader_methods},
    {Py_tp_getset, NULL, (void *)reader_getset},
    {Py_tp_doc, NULL, (void *)"An iterator over the batches of TFRecord sources (see read())."},
    {0, NULL, NULL}};

/* The name of a source in messages: a path as given, "<bytes>", or a file
 * object's name. */
static PyObject *name_of(PyObject *s)
{
    PyObject *b = NULL, *nm;
    if (PyUnicode_Check(s) || PyBytes_Check(s) || PyObject_HasAttrString(s, "__fspath__")) {
        if (PyBytes_Check(s) && !PyObject_HasAttrString(s, "__fspath__"))
            return PyBytes_FromString("<bytes>");
        if (!PyUnicode_FSConverter(s, &b))
            return NULL;
        return b;
    }
    if (PyObject_CheckBuffer(s))
        return PyBytes_FromString("<bytes>");
    if (!PyObject_HasAttrString(s, "read") && !PyObject_HasAttrString(s, "getbuffer")) {
        PyErr_Format(PyExc_TypeError,
                     "a source is a path, a bytes-like object or a binary file object, not %S",
                     (PyObject *)Py_TYPE(s));
        return NULL;
    }
    nm = PyObject_GetAttrString(s, "name");
    if (nm == NULL) {
        PyErr_Clear();
        return PyBytes_FromString("<file>");
    }
    if (PyUnicode_Check(nm) && PyUnicode_FSConverter(nm, &b)) {
        Py_DECREF(nm);
        return b;
    }
    PyErr_Clear();
    Py_DECREF(nm);
    return PyBytes_FromString("<file>");
}

static const char *const compression_words[] = {"auto", "none", "zlib", "gzip", NULL,
                                                "'auto', 'none', 'zlib', 'gzip'"};
static const char *const crc_words[] = {"verify", "skip", "none", NULL,
                                        "'verify', 'skip', 'none'"};
static const char *const varlen_words[] = {"sparse", "ragged", NULL, "'sparse', 'ragged'"};
static const char *const sync_words[] = {"walk", "checksum", NULL, "'walk', 'checksum'"};

static PyObject *mod_read(PyObject *module, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"source", "batch_size", "compression", "crc", "split",
                             "byte_range", "varlen", "message", "max_record_size", "sync",
                             "index", "threads", NULL};
    PyObject *source, *batch = NULL, *compression = NULL, *crc = NULL, *split = Py_None;
    PyObject *range = Py_None, *varlen = NULL, *message = Py_None, *maxrec = Py_None;
    PyObject *sync = NULL, *index = Py_None, *threads = NULL, *list = NULL, *names = NULL;
    reader_object *r;
    const fcpy_message *m;
    fc_input_options opt;
    size_t bsize = 256, mr = 0, nthreads = 1, i;
    int comp = 0, crcp = 0, vl = 0, sy = 0;
    Py_ssize_t k, ns;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$OOOOOOOOOO", kwlist, &source, &batch,
                                     &compression, &crc, &split, &range, &varlen, &message,
                                     &maxrec, &sync, &index, &threads))
        return NULL;
    if ((m = find_message(message)) == NULL)
        return NULL;
    if ((batch != NULL && size_option(batch, "batch_size", 1, MAX_BATCH, &bsize) != 0) ||
        (compression != NULL && word_option(compression, "compression", compression_words,
                                            &comp) != 0) ||
        (crc != NULL && word_option(crc, "crc", crc_words, &crcp) != 0) ||
        (varlen != NULL && word_option(varlen, "varlen", varlen_words, &vl) != 0) ||
        (sync != NULL && word_option(sync, "sync", sync_words, &sy) != 0) ||
        (maxrec != Py_None &&
         size_option(maxrec, "max_record_size", 1, PY_SSIZE_T_MAX, &mr) != 0) ||
        (threads != NULL && threads != Py_None &&
         size_option(threads, "threads", 0, MAX_THREADS, &nthreads) != 0))
        return NULL;
    if (nthreads == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        nthreads = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (size_t)cpus;
    }
    memset(&opt, 0, sizeof opt);
    opt.compression = comp == 0 ? FC_COMPRESSION_AUTO
                      : comp == 1 ? FC_COMPRESSION_NONE
                      : comp == 2 ? FC_COMPRESSION_ZLIB
                                  : FC_COMPRESSION_GZIP;
    opt.crc_policy = crcp == 0 ? FC_CRC_VERIFY : crcp == 1 ? FC_CRC_SKIP_CORRUPT : FC_CRC_NONE;
    opt.max_record_size = mr;
    opt.sync = sy == 0 ? FC_SYNC_WALK : FC_SYNC_CHECKSUM;
    if (split != Py_None && range != Py_None) {
        PyErr_SetString(PyExc_ValueError, "split and byte_range: one or the other");
        return NULL;
    }
    if (split != Py_None) {
        if (pair_option(split, "split", &opt.part_a, &opt.part_b) != 0)
            return NULL;
        if (opt.part_b == 0 || opt.part_b == UINT64_MAX || opt.part_a >= opt.part_b) {
            PyErr_Format(PyExc_ValueError, "split (i, n) needs 0 <= i < n, not %R", split);
            return NULL;
        }
        opt.part = FC_PART_SPLIT;
    } else if (range != Py_None) {
        if (pair_option(range, "byte_range", &opt.part_a, &opt.part_b) != 0)
            return NULL;
        if (opt.part_a > opt.part_b) {
            PyErr_Format(PyExc_ValueError, "byte_range (a, b) needs a <= b, not %R", range);
            return NULL;
        }
        opt.part = FC_PART_RANGE;
    }
    /* the sources: one, or a list or tuple of them */
    if (PyList_Check(source) || PyTuple_Check(source))
        list = PySequence_Tuple(source);
    else
        list = PyTuple_Pack(1, source);
    if (list == NULL)
        return NULL;
    ns = PyTuple_Size(list);
    names = PyTuple_New(ns);
    if (names == NULL) {
        Py_DECREF(list);
        return NULL;
    }
    for (k = 0; k < ns; k++) {
        PyObject *nm = name_of(PyTuple_GetItem(list, k));
        if (nm == NULL) {
            Py_DECREF(list);
            Py_DECREF(names);
            return NULL;
        }
        PyTuple_SetItem(names, k, nm);
    }
    r = PyObject_GC_New(reader_object, (PyTypeObject *)g_reader_type);
    if (r == NULL) {
        Py_DECREF(list);
        Py_DECREF(names);
        return NULL;
    }
    memset((char *)r + sizeof(PyObject), 0, sizeof *r - sizeof(PyObject));
    r->m = m;
    r->sources = list;
    r->names = names;
    r->opt = opt;
    r->bsize = bsize;
    r->ragged = vl == 1;
    PyObject_GC_Track((PyObject *)r);
    if (index != Py_None) {
        if (!PyUnicode_FSConverter(index, &r->index_path)) {
            Py_DECREF(r);
            return NULL;
        }
        r->opt.index_path = PyBytes_AsString(r->index_path);
    }
    /* threads=1: one slot, parsed on the caller's thread; else 2 per thread */
    r->depth = nthreads > 1 ? 2 * nthreads : 1;
    r->slots = (slot *)calloc(r->depth, sizeof *r->slots);
    if (r->slots == NULL) {
        Py_DECREF(r);
        return PyErr_NoMemory();
    }
    for (i = 0; i < r->depth; i++) {
        slot *t = &r->slots[i];
        t->live = -1;
        t->views = (fc_bytes *)calloc(bsize, sizeof *t->views);
        t->at = (size_t *)calloc(bsize, sizeof *t->at);
        t->index = (uint64_t *)calloc(bsize, sizeof *t->index);
        t->offset = (uint64_t *)calloc(bsize, sizeof *t->offset);
        t->src = (Py_ssize_t *)calloc(bsize, sizeof *t->src);
        if (t->views == NULL || t->at == NULL || t->index == NULL || t->offset == NULL ||
            t->src == NULL) {
            Py_DECREF(r);
            return PyErr_NoMemory();
        }
        if (batch_work_init(&t->w, m, bsize, vl == 1 ? FC_BATCH_RAGGED : FC_BATCH_SPARSE) != 0) {
            Py_DECREF(r);
            return NULL;
        }
    }
    if (nthreads > 1) {
        int e;
        r->threads = (pthread_t *)calloc(nthreads - 1, sizeof *r->threads);
        if (r->threads == NULL) {
            Py_DECREF(r);
            return PyErr_NoMemory();
        }
        pthread_mutex_init(&r->mu, NULL);
        pthread_cond_init(&r->work_cv, NULL);
        pthread_cond_init(&r->done_cv, NULL);
        r->have_sync = 1;
        r->pid = getpid();
        for (i = 0; i + 1 < nthreads; i++) {
            if ((e = pthread_create(&r->threads[i], NULL, parse_main, r)) != 0) {
                Py_DECREF(r);
                errno = e;
                return PyErr_SetFromErrno(PyExc_OSError);
            }
            r->started++;
        }
    }
    return (PyObject *)r;
}

/* ------------------------------------------------------------ one record */

static PyObject *mod_parse(PyObject *module, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"record", "message", NULL};
    PyObject *record, *message = Py_None, *out = NULL;
    const fcpy_message *m;
    fc_message_desc single;
    batch_work w;
    Py_buffer view;
    fc_bytes rec;
    fc_error err;
    fc_status s;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|$O", kwlist, &record, &message))
        return NULL;
    if ((m = find_message(message)) == NULL)
        return NULL;
    if (PyObject_GetBuffer(record, &view, PyBUF_SIMPLE) != 0)
        return NULL;
    if (batch_work_init(&w, m, 1, FC_BATCH_RAGGED) != 0) {
        batch_work_free(&w);
        PyBuffer_Release(&view);
        return NULL;
    }
    if (m->md != NULL) { /* parse_single_example's rules, not the batch's */
        single = *m->md;
        single.parse_batched = NULL;
        w.md = &single;
    }
    rec.data = (const uint8_t *)view.buf;
    rec.size = (size_t)view.len;
    fc_error_clear(&err);
    Py_BEGIN_ALLOW_THREADS
    s = (fc_status)(m->md != NULL ? m->md->parse(w.scratch, rec.data, rec.size, &err)
                                  : m->sd->parse(w.scratch, rec.data, rec.size, &err));
    if (s == FC_OK)
        s = batch_run(&w, &rec, 1, &err);
    Py_END_ALLOW_THREADS
    if (s == FC_OK)
        out = batch_wrap(&w, 1, 1);
    else
        raise_error(&err, NULL, FC_NO_INDEX, err.offset, 0);
    batch_work_free(&w);
    PyBuffer_Release(&view);
    return out;
}

/* ------------------------------------------------------------ writing */

/* What write() holds while it writes: the arrays it reads (buffers to
 * release, objects to keep) and the views it made. */
typedef struct keeper {
    Py_buffer bufs[4 * 64];
    size_t nbufs;
    PyObject *objs; /* list */
    void *allocs[64];
    size_t nallocs;
} keeper;

static void keeper_free(keeper *k)
{
    size_t i;
    for (i = 0; i < k->nbufs; i++)
        PyBuffer_Release(&k->bufs[i]);
    for (i = 0; i < k->nallocs; i++)
        free(k->allocs[i]);
    Py_CLEAR(k->objs);
    k->nbufs = k->nallocs = 0;
}

/* One input array of write(): its values (int64_t, float or fc_bytes) and
 * its shape. */
typedef struct warr {
    const void *p;
    size_t n;
    unsigned rank;
    int64_t shape[FC_MAX_RANK + 3];
} warr;

/* The int64 / float32 array of obj (any array-like of a kind that casts
 * safely), contiguous. */
static int get_numeric(keeper *k, PyObject *obj, int dt, const char *what, warr *out)
{
    PyObject *arr, *c, *kind, *shape;
    const char *ks;
    Py_ssize_t r, i;
    int ok;
    if (k->nbufs == sizeof k->bufs / sizeof k->bufs[0]) {
        PyErr_SetString(PyExc_ValueError, "write: too many arrays in one batch");
        return -1;
    }
    arr = PyObject_CallFunctionObjArgs(g_asarray, obj, NULL);
    if (arr == NULL)
        return -1;
    kind = PyObject_GetAttrString(arr, "dtype");
    if (kind != NULL) {
        PyObject *dt_kind = PyObject_GetAttrString(kind, "kind");
        Py_DECREF(kind);
        kind = dt_kind;
    }
    ks = kind != NULL ? PyUnicode_AsUTF8AndSize(kind, NULL) : NULL;
    if (ks == NULL) {
        Py_XDECREF(kind);
        Py_DECREF(arr);
        return -1;
    }
    ok = dt == DT_INT64 ? strchr("iub", ks[0]) != NULL : strchr("fiub", ks[0]) != NULL;
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s: an array of %s, not of dtype kind '%s'", what,
                     dt == DT_INT64 ? "integers" : "numbers", ks);
        Py_DECREF(kind);
        Py_DECREF(arr);
        return -1;
    }
    Py_DECREF(kind);
    c = PyObject_CallFunctionObjArgs(g_ascontiguous, arr, g_dtype[dt], NULL);
    Py_DECREF(arr);
    if (c == NULL || PyList_Append(k->objs, c) != 0) {
        Py_XDECREF(c);
        return -1;
    }
    Py_DECREF(c);
    shape = PyObject_GetAttrString(c, "shape");
    if (shape == NULL)
        return -1;
    r = PyTuple_Size(shape);
    if (r > FC_MAX_RANK + 2) {
        Py_DECREF(shape);
        PyErr_Format(PyExc_ValueError, "%s: rank %zd is too high", what, r);
        return -1;
    }
    out->rank = (unsigned)r;
    for (i = 0; i < r; i++)
        out->shape[i] = (int64_t)PyLong_AsSsize_t(PyTuple_GetItem(shape, i));
    Py_DECREF(shape);
    if (PyObject_GetBuffer(c, &k->bufs[k->nbufs], PyBUF_SIMPLE) != 0)
        return -1;
    out->p = k->bufs[k->nbufs].buf;
    out->n = (size_t)k->bufs[k->nbufs].len / (dt == DT_INT64 ? sizeof(int64_t) : sizeof(float));
    k->nbufs++;
    return 0;
}

/* Bytes values: a featc Bytes, or any array-like of bytes objects. */
static int get_bytes(keeper *k, PyObject *obj, const char *what, warr *out)
{
    fc_bytes *v;
    Py_ssize_t i, n, r;
    PyObject *list = NULL, *shape;
    if (k->nallocs == sizeof k->allocs / sizeof k->allocs[0]) {
        PyErr_SetString(PyExc_ValueError, "write: too many bytes columns in one batch");
        return -1;
    }
    if (PyObject_TypeCheck(obj, (PyTypeObject *)g_bytes_type)) {
        bytes_object *b = (bytes_object *)obj;
        n = b->n;
        shape = Py_NewRef(b->shape);
        if (PyList_Append(k->objs, obj) != 0) {
            Py_DECREF(shape);
            return -1;
        }
    } else {
        /* featc.Bytes (the plain form) gives its values in its shape */
        PyObject *arr = PyObject_HasAttrString(obj, "offsets") &&
                                PyObject_HasAttrString(obj, "to_numpy")
                            ? PyObject_CallMethod(obj, "to_numpy", NULL)
                            : PyObject_CallFunction(g_asarray, "Os", obj, "O");
        PyObject *flat;
        if (arr == NULL)
            return -1;
        shape = PyObject_GetAttrString(arr, "shape");
        flat = PyObject_CallMethod(arr, "reshape", "(i)", -1);
        Py_DECREF(arr);
        list = flat != NULL ? PySequence_List(flat) : NULL;
        Py_XDECREF(flat);
        if (list == NULL || shape == NULL || PyList_Append(k->objs, list) != 0) {
            Py_XDECREF(list);
            Py_XDECREF(shape);
            return -1;
        }
        Py_DECREF(list);
        n = PyList_Size(list);
    }
    r = PyTuple_Size(shape);
    if (r > FC_MAX_RANK + 2) {
        Py_DECREF(shape);
        PyErr_Format(PyExc_ValueError, "%s: rank %zd is too high", what, r);
        return -1;
    }
    out->rank = (unsigned)r;
    for (i = 0; i < r; i++)
        out->shape[i] = (int64_t)PyLong_AsSsize_t(PyTuple_GetItem(shape, i));
    Py_DECREF(shape);
    v = (fc_bytes *)calloc((size_t)n + 1, sizeof *v);
    if (v == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    k->allocs[k->nallocs++] = v;
    for (i = 0; i < n; i++) {
        if (list == NULL) {
            bytes_object *b = (bytes_object *)obj;
            v[i].data = b->data + b->offsets[i];
            v[i].size = (size_t)(b->offsets[i + 1] - b->offsets[i]);
        } else {
            PyObject *x = PyList_GetItem(list, i);
            if (!PyBytes_Check(x)) {
                PyErr_Format(PyExc_TypeError, "%s: value %zd is %S, not bytes", what, i,
                             (PyObject *)Py_TYPE(x));
                return -1;
            }
            v[i].data = (const uint8_t *)PyBytes_AsString(x);
            v[i].size = (size_t)PyBytes_Size(x);
        }
    }
    out->p = v;
    out->n = (size_t)n;
    return 0;
}

static int get_values(keeper *k, PyObject *obj, fc_type t, const char *what, warr *out)
{
    return t == FC_TYPE_BYTES ? get_bytes(k, obj, what, out)
                              : get_numeric(k, obj, dtype_of(t), what, out);
}

/* How a feature is given to write(). */
enum { W_NONE, W_DENSE, W_SPARSE, W_RAGGED };

typedef struct wcol {
    int form;
    const char *key;      /* for messages */
    warr values;
    warr indices;         /* W_SPARSE: [N, width] */
    warr dense_shape;     /* W_SPARSE: [rank], the batch's records first */
    warr splits[FC_MAX_RANK + 2]; /* W_RAGGED: outermost (over the batch) first */
    unsigned nsplits;
    const int64_t *lengths; /* fixed-frame lists: frames per record (or NULL) */
    size_t nlengths;
    size_t start;         /* W_SPARSE: the first index row of the next record */
} wcol;

static int is_type(PyObject *v, PyObject *t)
{
    return PyObject_TypeCheck(v, (PyTypeObject *)t);
}

/* Reads dict[key] of the batch (absent: W_NONE) into c. */
static int get_column(keeper *k, PyObject *dict, const char *key, size_t key_len, fc_type t,
                      wcol *c)
{
    PyObject *name = key_str(key, key_len), *v;
    memset(c, 0, sizeof *c);
    c->key = key;
    if (name == NULL)
        return -1;
    v = PyDict_GetItemWithError(dict, name);
    Py_DECREF(name);
    if (v == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (is_type(v, g_sparse_type) || (PyTuple_Check(v) && PyTuple_Size(v) == 3 &&
                                       PyObject_HasAttrString(v, "dense_shape"))) {
        c->form = W_SPARSE;
        return get_numeric(k, PyTuple_GetItem(v, 0), DT_INT64, key, &c->indices) != 0 ||
                       get_values(k, PyTuple_GetItem(v, 1), t, key, &c->values) != 0 ||
                       get_numeric(k, PyTuple_GetItem(v, 2), DT_INT64, key, &c->dense_shape) != 0
                   ? -1
                   : 0;
    }
    if (is_type(v, g_ragged_type) || (PyTuple_Check(v) && PyTuple_Size(v) == 2 &&
                                       PyObject_HasAttrString(v, "row_splits"))) {
        PyObject *rs = PyTuple_GetItem(v, 1);
        Py_ssize_t i, n = PyTuple_Check(rs) ? PyTuple_Size(rs) : 1;
        c->form = W_RAGGED;
        if (n < 1 || n > FC_MAX_RANK + 2) {
            PyErr_Format(PyExc_ValueError, "%s: %zd row splits", key, n);
            return -1;
        }
        c->nsplits = (unsigned)n;
        for (i = 0; i < n; i++)
            if (get_numeric(k, PyTuple_Check(rs) ? PyTuple_GetItem(rs, i) : rs, DT_INT64, key,
                            &c->splits[i]) != 0)
                return -1;
        return get_values(k, PyTuple_GetItem(v, 0), t, key, &c->values);
    }
    c->form = W_DENSE;
    return get_values(k, v, t, key, &c->values);
}

/* ------------------------------------------------ a record's struct from the columns */

static void *at(void *msg, size_t off)
{
    return (unsigned char *)msg + off;
}

static void store_size(void *msg, size_t off, size_t v)
{
    memcpy(at(msg, off), &v, sizeof v);
}

static void set_present(void *msg, size_t present_offset, size_t bit)
{
    fc_bit_set((uint32_t *)at(msg, present_offset), (unsigned)bit);
}

/* Values [lo, hi) of a (its type's size each) into the struct at off. */
static void put_values(void *msg, size_t off, fc_type t, const warr *a, size_t lo, size_t hi)
{
    size_t sz = fc_type_size(t);
    if (hi > lo)
        memcpy(at(msg, off), (const unsigned char *)a->p + lo * sz, (hi - lo) * sz);
}

static int too_many(const char *key, size_t b, size_t n, size_t max, const char *what)
{
    PyErr_Format(PyExc_ValueError, "%s: record %zu of the batch has %zu %s, more than the "
                 "spec's bound %zu", key, b, n, what, max);
    return -1;
}

/* The rows of record b at the top level of a ragged column: [lo, hi). */
static int ragged_rows(const wcol *c, size_t b, size_t level, size_t lo, size_t hi, size_t *nlo,
                       size_t *nhi)
{
    const warr *s = &c->splits[level];
    const int64_t *sp = (const int64_t *)s->p;
    if (hi >= s->n || sp[lo] < 0 || sp[hi] < sp[lo]) {
        PyErr_Format(PyExc_ValueError, "%s: row splits %zu do not cover record %zu", c->key,
                     level, b);
        return -1;
    }
    *nlo = (size_t)sp[lo];
    *nhi = (size_t)sp[hi];
    return 0;
}

/* A VarLen field (or a hidden one a SparseFeature or RaggedFeature reads)
 * of record b: values [lo, hi) of a. */
static int put_varlen(void *msg, const fc_field_desc *f, size_t bit, size_t present_offset,
                      const warr *a, size_t lo, size_t hi, size_t b, const char *key)
{
    if (hi > a->n || lo > hi) {
        PyErr_Format(PyExc_ValueError, "%s: record %zu's values [%zu, %zu) are not in the %zu "
                     "given", key, b, lo, hi, a->n);
        return -1;
    }
    if (hi - lo > f->max)
        return too_many(key, b, hi - lo, f->max, "values");
    put_values(msg, f->value_offset, f->type, a, lo, hi);
    store_size(msg, f->count_offset, hi - lo);
    set_present(msg, present_offset, bit);
    return 0;
}

/* The values of a partition of kind from the splits sp over rows [lo, hi)
 * (rebased to 0) into dst (room for max): their count, or SIZE_MAX after a
 * ValueError. */
static size_t partition_values(int64_t *dst, size_t max, fc_part_kind kind, const int64_t *sp,
                               size_t lo, size_t hi, size_t b, const char *key)
{
    size_t m = hi - lo, i, n = 0;
    size_t need = kind == FC_PART_ROW_SPLITS ? m + 1
                  : kind == FC_PART_VALUE_ROWIDS ? (size_t)(sp[hi] - sp[lo])
                                                 : m;
    if (need > max) {
        too_many(key, b, need, max, "partition values");
        return SIZE_MAX;
    }
    for (i = 0; i < m; i++) {
        int64_t a = sp[lo + i] - sp[lo], z = sp[lo + i + 1] - sp[lo];
        switch (kind) {
        case FC_PART_ROW_SPLITS: dst[n++] = a; break;
        case FC_PART_ROW_LENGTHS: dst[n++] = z - a; break;
        case FC_PART_ROW_STARTS: dst[n++] = a; break;
        case FC_PART_ROW_LIMITS: dst[n++] = z; break;
        case FC_PART_VALUE_ROWIDS: {
            int64_t j;
            for (j = a; j < z; j++)
                dst[n++] = (int64_t)i;
            break;
        }
        default: break;
        }
    }
    if (kind == FC_PART_ROW_SPLITS)
        dst[n++] = sp[hi] - sp[lo];
    return n;
}

/* An int64 partition field of record b. */
static int put_partition(void *msg, const fc_field_desc *f, size_t bit, size_t present_offset,
                         fc_part_kind kind, const int64_t *sp, size_t lo, size_t hi, size_t b,
                         const char *key)
{
    size_t n = partition_values((int64_t *)at(msg, f->value_offset), f->max, kind, sp, lo, hi, b,
                                key);
    if (n == SIZE_MAX)
        return -1;
    store_size(msg, f->count_offset, n);
    set_present(msg, present_offset, bit);
    return 0;
}

/* A VarLen field given as an array [B, n]: n values per record. */
static int put_field_dense_varlen(void *msg, const fc_field_desc *f, size_t i,
                                  size_t present_offset, const wcol *c, size_t b, size_t nrec)
{
    size_t per;
    if (c->values.rank != 2 || (size_t)c->values.shape[0] != nrec) {
        PyErr_Format(PyExc_ValueError, "%s: a Sparse, a Ragged, or an array [%zu, n]", c->key,
                     nrec);
        return -1;
    }
    per = (size_t)c->values.shape[1];
    return put_varlen(msg, f, i, present_offset, &c->values, b * per, (b + 1) * per, b, c->key);
}

/* A Sparse's indices: [N, w] for its N values. */
static int sparse_ok(const wcol *c, size_t w)
{
    if (c->indices.rank != 2 || (size_t)c->indices.shape[1] != w ||
        c->indices.n != c->values.n * w) {
        PyErr_Format(PyExc_ValueError, "%s: a Sparse with indices [N, %zu] for its N values",
                     c->key, w);
        return -1;
    }
    return 0;
}

/* Field i (of fields[0..n), presence bits at present_offset) of record b. */
static int put_field(void *msg, const fc_field_desc *fields, size_t i, size_t present_offset,
                     wcol *c, size_t b, size_t nrec)
{
    const fc_field_desc *f = &fields[i];
    const fc_field_extra *x = f->extra;
    size_t lo, hi;
    if (c->form == W_NONE)
        return 0;
    if (f->kind == FC_KIND_FIXED || (f->kind == FC_KIND_ROWS && c->form == W_DENSE)) {
        size_t per = c->values.n / (nrec > 0 ? nrec : 1);
        if (c->form != W_DENSE || c->values.rank == 0 || (size_t)c->values.shape[0] != nrec ||
            c->values.n != per * nrec) {
            PyErr_Format(PyExc_ValueError, "%s: an array [%zu, ...] for the batch's %zu records",
                         c->key, nrec, nrec);
            return -1;
        }
        if (f->kind == FC_KIND_FIXED) {
            if (per != f->elems) {
                PyErr_Format(PyExc_ValueError, "%s: %zu values per record, the spec's shape "
                             "holds %zu", c->key, per, f->elems);
                return -1;
            }
        } else if (f->elems == 0 || per % f->elems != 0 || per / f->elems > f->max) {
            PyErr_Format(PyExc_ValueError, "%s: %zu values per record are not whole rows of %zu "
                         "within the spec's %zu rows", c->key, per, f->elems, f->max);
            return -1;
        } else {
            store_size(msg, f->count_offset, per / f->elems);
        }
        put_values(msg, f->value_offset, f->type, &c->values, b * per, (b + 1) * per);
        set_present(msg, present_offset, i);
        return 0;
    }
    if (f->kind == FC_KIND_VARLEN || f->kind == FC_KIND_ROWS) {
        size_t width = f->kind == FC_KIND_ROWS ? f->elems : 1;
        if (c->form == W_RAGGED) {
            if (ragged_rows(c, b, 0, b, b + 1, &lo, &hi) != 0)
                return -1;
        } else if (c->form == W_SPARSE) {
            const int64_t *ind = (const int64_t *)c->indices.p;
            size_t w = 2;
            if (sparse_ok(c, w) != 0)
                return -1;
            lo = c->start;
            for (hi = lo; hi < c->values.n && ind[hi * w] == (int64_t)b;)
                hi++;
            if (hi < c->values.n && ind[hi * w] < (int64_t)b) {
                PyErr_Format(PyExc_ValueError, "%s: sparse indices not in record order", c->key);
                return -1;
            }
            c->start = hi;
        } else {
            return put_field_dense_varlen(msg, f, i, present_offset, c, b, nrec);
        }
        if (f->kind == FC_KIND_ROWS) {
            if ((hi - lo) % width != 0 || (hi - lo) / width > f->max) {
                PyErr_Format(PyExc_ValueError, "%s: record %zu's %zu values are not whole rows "
                             "of %zu within %zu", c->key, b, hi - lo, width, f->max);
                return -1;
            }
            put_values(msg, f->value_offset, f->type, &c->values, lo, hi);
            store_size(msg, f->count_offset, (hi - lo) / width);
            set_present(msg, present_offset, i);
            return 0;
        }
        return put_varlen(msg, f, i, present_offset, &c->values, lo, hi, b, c->key);
    }
    if (f->kind == FC_KIND_SPARSE) {
        const int64_t *ind = (const int64_t *)c->indices.p;
        size_t w = f->rank + 1, k, r;
        if (c->form != W_SPARSE) {
            PyErr_Format(PyExc_ValueError, "%s: a Sparse with indices [N, %zu]", c->key, w);
            return -1;
        }
        if (sparse_ok(c, w) != 0)
            return -1;
        lo = c->start;
        for (hi = lo; hi < c->values.n && ind[hi * w] == (int64_t)b;)
            hi++;
        c->start = hi;
        if (hi - lo > f->max)
            return too_many(c->key, b, hi - lo, f->max, "entries");
        for (k = 0; k < f->rank; k++) {
            const fc_field_desc *g = &fields[x->sparse_fields[k]];
            int64_t *dst = (int64_t *)at(msg, g->value_offset);
            for (r = lo; r < hi; r++)
                dst[r - lo] = ind[r * w + 1 + k];
            store_size(msg, g->count_offset, hi - lo);
            set_present(msg, present_offset, x->sparse_fields[k]);
        }
        return put_varlen(msg, &fields[x->sparse_fields[f->rank]], x->sparse_fields[f->rank],
                          present_offset, &c->values, lo, hi, b, c->key);
    }
    if (f->kind == FC_KIND_RAGGED) {
        unsigned q;
        if (c->form != W_RAGGED || c->nsplits != x->nparts + 1) {
            PyErr_Format(PyExc_ValueError, "%s: a Ragged with %u row splits", c->key,
                         x->nparts + 1);
            return -1;
        }
        if (ragged_rows(c, b, 0, b, b + 1, &lo, &hi) != 0)
            return -1;
        for (q = 0; q < x->nparts; q++) {
            const fc_part_desc *pd = &x->parts[q];
            size_t nlo, nhi;
            if (ragged_rows(c, b, q + 1, lo, hi, &nlo, &nhi) != 0)
                return -1;
            if (pd->kind != FC_PART_UNIFORM_ROW_LENGTH &&
                put_partition(msg, &fields[pd->field], pd->field, present_offset, pd->kind,
                              (const int64_t *)c->splits[q + 1].p, lo, hi, b, c->key) != 0)
                return -1;
            lo = nlo;
            hi = nhi;
        }
        return put_varlen(msg, &fields[x->sparse_fields[0]], x->sparse_fields[0], present_offset,
                          &c->values, lo, hi, b, c->key);
    }
    return 0;
}

/* Frame t of list l (values [lo, hi) of a, or n partition values). */
static int put_frame(void *msg, const fc_list_desc *l, size_t t, const warr *a, size_t lo,
                     size_t hi, size_t b, const char *key)
{
    size_t sz = fc_type_size(l->type);
    if (hi > a->n || lo > hi) {
        PyErr_Format(PyExc_ValueError, "%s: record %zu's values are not in the %zu given", key,
                     b, a->n);
        return -1;
    }
    if (hi - lo > l->max)
        return too_many(key, b, hi - lo, l->max, "values in a frame");
    if (hi > lo)
        memcpy(at(msg, l->value_offset + t * l->max * sz), (const unsigned char *)a->p + lo * sz,
               (hi - lo) * sz);
    store_size(msg, l->count_offset + t * sizeof(size_t), hi - lo);
    return 0;
}

/* A RaggedFeature list of record b: its value list and partition lists,
 * frame by frame, from Ragged(values, (over frames, over each frame's top
 * rows, per partition...)). */
static int put_ragged_list(void *msg, const fc_seq_desc *sd, size_t j, const wcol *c, size_t b)
{
    const fc_list_desc *l = &sd->lists[j];
    const fc_field_extra *x = l->extra;
    size_t lo, hi, t, frames;
    unsigned q;
    if (c->form != W_RAGGED || c->nsplits != x->nparts + 2) {
        PyErr_Format(PyExc_ValueError, "%s: a Ragged with %u row splits", c->key, x->nparts + 2);
        return -1;
    }
    if (ragged_rows(c, b, 0, b, b + 1, &lo, &hi) != 0)
        return -1;
    frames = hi - lo;
    for (t = 0; t < frames; t++) {
        size_t rlo, rhi;
        const fc_list_desc *vl = &sd->lists[x->sparse_fields[0]];
        if (ragged_rows(c, b, 1, lo + t, lo + t + 1, &rlo, &rhi) != 0)
            return -1;
        for (q = 0; q < x->nparts; q++) {
            const fc_part_desc *pd = &x->parts[q];
            size_t nlo, nhi;
            if (ragged_rows(c, b, q + 2, rlo, rhi, &nlo, &nhi) != 0)
                return -1;
            if (pd->kind != FC_PART_UNIFORM_ROW_LENGTH) {
                const fc_list_desc *pl = &sd->lists[pd->field];
                size_t n;
                if (t >= pl->max_frames)
                    return too_many(c->key, b, frames, pl->max_frames, "frames");
                n = partition_values((int64_t *)at(msg, pl->value_offset + t * pl->max * 8u),
                                     pl->max, pd->kind, (const int64_t *)c->splits[q + 2].p, rlo,
                                     rhi, b, c->key);
                if (n == SIZE_MAX)
                    return -1;
                store_size(msg, pl->count_offset + t * sizeof(size_t), n);
            }
            rlo = nlo;
            rhi = nhi;
        }
        if (t >= vl->max_frames)
            return too_many(c->key, b, frames, vl->max_frames, "frames");
        if (put_frame(msg, vl, t, &c->values, rlo, rhi, b, c->key) != 0)
            return -1;
    }
    /* every list the feature reads has the frames */
    for (q = 0; q <= x->nparts; q++) {
        size_t li = q == 0 ? x->sparse_fields[0] : x->parts[q - 1].field;
        if (q > 0 && x->parts[q - 1].kind == FC_PART_UNIFORM_ROW_LENGTH)
            continue;
        store_size(msg, sd->lists[li].frames_offset, frames);
        if (frames > 0)
            set_present(msg, sd->present_offset, sd->ncontext + li);
    }
    return 0;
}

/* Feature list j of a SequenceExample record b. */
static int put_list(void *msg, const fc_seq_desc *sd, size_t j, const wcol *c, size_t b,
                    size_t nrec)
{
    const fc_list_desc *l = &sd->lists[j];
    size_t bit = sd->ncontext + j, sz = fc_type_size(l->type), t, frames;
    if (c->form == W_NONE)
        return 0;
    if (l->kind == FC_KIND_FIXED) {
        size_t per, most;
        if (c->form != W_DENSE || c->values.rank < 2 || (size_t)c->values.shape[0] != nrec) {
            PyErr_Format(PyExc_ValueError, "%s: an array [%zu, frames, ...]", c->key, nrec);
            return -1;
        }
        most = (size_t)c->values.shape[1];
        per = c->values.n / nrec;
        if (per != most * l->elems) {
            PyErr_Format(PyExc_ValueError, "%s: frames of %zu values, the spec's hold %zu",
                         c->key, most > 0 ? per / most : 0, l->elems);
            return -1;
        }
        frames = most;
        if (c->lengths != NULL) {
            if (b >= c->nlengths || c->lengths[b] < 0 || (size_t)c->lengths[b] > most) {
                PyErr_Format(PyExc_ValueError, "%s: lengths[%zu] is not a frame count from 0 "
                             "to %zu", c->key, b, most);
                return -1;
            }
            frames = (size_t)c->lengths[b];
        }
        if (frames > l->max_frames)
            return too_many(c->key, b, frames, l->max_frames, "frames");
        put_values(msg, l->value_offset, l->type, &c->values, b * per, b * per + frames * l->elems);
    } else if (l->kind == FC_KIND_VARLEN) {
        size_t lo, hi;
        const int64_t *inner;
        if (c->form != W_RAGGED || c->nsplits != 2) {
            PyErr_Format(PyExc_ValueError, "%s: a Ragged with row splits over frames and over "
                         "values (read with varlen='ragged')", c->key);
            return -1;
        }
        if (ragged_rows(c, b, 0, b, b + 1, &lo, &hi) != 0)
            return -1;
        if (hi >= c->splits[1].n) {
            PyErr_Format(PyExc_ValueError, "%s: inner row splits do not cover record %zu",
                         c->key, b);
            return -1;
        }
        frames = hi - lo;
        if (frames > l->max_frames)
            return too_many(c->key, b, frames, l->max_frames, "frames");
        inner = (const int64_t *)c->splits[1].p;
        for (t = 0; t < frames; t++) {
            int64_t a = inner[lo + t], z = inner[lo + t + 1];
            if (a < 0 || z < a || (size_t)z > c->values.n) {
                PyErr_Format(PyExc_ValueError, "%s: record %zu, frame %zu: splits out of range",
                             c->key, b, t);
                return -1;
            }
            if ((size_t)(z - a) > l->max)
                return too_many(c->key, b, (size_t)(z - a), l->max, "values in a frame");
            if (z > a)
                memcpy(at(msg, l->value_offset + t * l->max * sz),
                       (const unsigned char *)c->values.p + (size_t)a * sz, (size_t)(z - a) * sz);
            store_size(msg, l->count_offset + t * sizeof(size_t), (size_t)(z - a));
        }
    } else {
        return put_ragged_list(msg, sd, j, c, b);
    }
    store_size(msg, l->frames_offset, frames);
    /* no frames: absent (a batch does not tell absent from empty, and an
     * aligned SequenceExample's present lists must agree), unless the spec
     * requires the list */
    if (frames > 0 || (l->kind == FC_KIND_FIXED && !l->allow_missing))
        set_present(msg, sd->present_offset, bit);
    return 0;
}

/* The number of records a column gives (its batch dimension). */
static int column_records(const wcol *c, size_t *n)
{
    size_t k;
    switch (c->form) {
    case W_DENSE: k = c->values.rank > 0 ? (size_t)c->values.shape[0] : 1; break;
    case W_RAGGED: k = c->splits[0].n > 0 ? c->splits[0].n - 1 : 0; break;
    case W_SPARSE:
        k = c->dense_shape.n > 0 ? (size_t)((const int64_t *)c->dense_shape.p)[0] : 0;
        break;
    default: return 0;
    }
    if (*n != SIZE_MAX && *n != k) {
        PyErr_Format(PyExc_ValueError, "%s holds %zu records, the batch's other features %zu",
                     c->key, k, *n);
        return -1;
    }
    *n = k;
    return 0;
}

static const char *const wcompression_words[] = {"none", "zlib", "gzip", NULL,
                                                 "'none', 'zlib', 'gzip'"};

/* The columns of a batch for message m: one per field, or per context
 * field then list; W_NONE for those the batch does not have. */
static int get_columns(keeper *k, const fcpy_message *m, PyObject *batch, wcol *cols, size_t *nrec)
{
    PyObject *ctx = batch, *lists = NULL, *lengths = NULL;
    const fc_field_desc *fields = m->md != NULL ? m->md->fields : m->sd->context;
    size_t nf = m->md != NULL ? m->md->nfields : m->sd->ncontext, i;
    if (m->sd != NULL) {
        if (!PyTuple_Check(batch) || PyTuple_Size(batch) < 2 || PyTuple_Size(batch) > 3) {
            PyErr_SetString(PyExc_TypeError, "a sequence_example batch is (context, "
                            "feature_lists) or (context, feature_lists, lengths)");
            return -1;
        }
        ctx = PyTuple_GetItem(batch, 0);
        lists = PyTuple_GetItem(batch, 1);
        lengths = PyTuple_Size(batch) == 3 ? PyTuple_GetItem(batch, 2) : NULL;
    }
    if (!PyDict_Check(ctx) || (lists != NULL && !PyDict_Check(lists)) ||
        (lengths != NULL && !PyDict_Check(lengths))) {
        PyErr_SetString(PyExc_TypeError, "a batch is a dict of features (key -> array, Sparse, "
                        "Ragged or featc Bytes), as read() gives");
        return -1;
    }
    *nrec = SIZE_MAX;
    for (i = 0; i < nf; i++) {
        const fc_field_desc *f = &fields[i];
        if (f->extra->hidden) {
            memset(&cols[i], 0, sizeof cols[i]);
            continue;
        }
        if (get_column(k, ctx, f->key, f->key_len, f->type, &cols[i]) != 0)
            return -1;
        if (cols[i].form == W_NONE && f->kind == FC_KIND_FIXED && f->default_value == NULL) {
            PyErr_Format(PyExc_ValueError, "the batch lacks %s, which the spec requires "
                         "(FixedLen without a default)", f->key);
            return -1;
        }
        if (column_records(&cols[i], nrec) != 0)
            return -1;
    }
    for (i = 0; m->sd != NULL && i < m->sd->nlists; i++) {
        const fc_list_desc *l = &m->sd->lists[i];
        wcol *c = &cols[nf + i];
        if (l->extra != NULL && l->extra->hidden) {
            memset(c, 0, sizeof *c);
            continue;
        }
        if (get_column(k, lists, l->key, l->key_len, l->type, c) != 0)
            return -1;
        if (c->form == W_NONE && l->kind == FC_KIND_FIXED && !l->allow_missing) {
            PyErr_Format(PyExc_ValueError, "the batch lacks the feature list %s, which the "
                         "spec requires", l->key);
            return -1;
        }
        if (c->form != W_NONE && l->kind == FC_KIND_FIXED && lengths != NULL) {
            PyObject *name = key_str(l->key, l->key_len);
            PyObject *v = name != NULL ? PyDict_GetItemWithError(lengths, name) : NULL;
            warr a;
            Py_XDECREF(name);
            if (v == NULL && PyErr_Occurred())
                return -1;
            if (v != NULL) {
                if (get_numeric(k, v, DT_INT64, l->key, &a) != 0)
                    return -1;
                c->lengths = (const int64_t *)a.p;
                c->nlengths = a.n;
            }
        }
        if (column_records(c, nrec) != 0)
            return -1;
    }
    /* A VarLen feature that a SparseFeature of the batch also reads is
     * written from the SparseFeature (in its index order): the two cannot
     * both give the key's values. */
    for (i = 0; i < nf; i++) {
        const fc_field_extra *x = fields[i].extra;
        unsigned q;
        if (fields[i].kind != FC_KIND_SPARSE || cols[i].form == W_NONE)
            continue;
        for (q = 0; q <= fields[i].rank; q++)
            cols[x->sparse_fields[q]].form = W_NONE;
    }
    if (*nrec == SIZE_MAX)
        *nrec = 0;
    return 0;
}

static PyObject *mod_write(PyObject *module, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"dest", "batch", "compression", "message", "append",
                             "write_defaults", NULL};
    PyObject *dest, *batch, *compression = NULL, *message = Py_None, *path = NULL;
    int append = 0, write_defaults = 0, comp = 0, fd = -1, own = 0;
    unsigned defaults;
    const fcpy_message *m;
    keeper k;
    wcol *cols = NULL;
    void *msg = NULL, *work = NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, nrec = 0, b, i, ncols, total = 0;
    PyObject *items = NULL;
    Py_ssize_t item;
    fc_writer_options wo;
    fc_writer w;
    fc_error err;
    fc_status st = FC_OK;
    int failed = 1, opened = 0;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$OOpp", kwlist, &dest, &batch, &compression,
                                     &message, &append, &write_defaults))
        return NULL;
    defaults = write_defaults ? FC_WRITE_DEFAULTS : FC_OMIT_DEFAULTS;
    if ((m = find_message(message)) == NULL ||
        (compression != NULL && word_option(compression, "compression", wcompression_words,
                                            &comp) != 0))
        return NULL;
    memset(&k, 0, sizeof k);
    k.objs = PyList_New(0);
    ncols = ncols_of(m);
    cols = (wcol *)calloc(ncols + 1, sizeof *cols);
    msg = malloc(m->md != NULL ? m->md->size : m->sd->size);
    work = malloc(FC_WRITER_WORK_SIZE);
    if (k.objs == NULL || cols == NULL || msg == NULL || work == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    /* where to: a path, or a binary file object with a descriptor */
    if (PyUnicode_Check(dest) || PyBytes_Check(dest) || PyObject_HasAttrString(dest, "__fspath__")) {
        const char *p;
        if (!PyUnicode_FSConverter(dest, &path))
            goto done;
        p = PyBytes_AsString(path);
        Py_BEGIN_ALLOW_THREADS
        fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0666);
        Py_END_ALLOW_THREADS
        if (fd < 0) {
            PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, dest);
            goto done;
        }
        own = 1;
    } else {
        PyObject *r = PyObject_CallMethod(dest, "flush", NULL), *no;
        Py_XDECREF(r);
        no = r != NULL ? PyObject_CallMethod(dest, "fileno", NULL) : NULL;
        if (no == NULL) {
            PyErr_Clear();
            PyErr_SetString(PyExc_TypeError, "write: dest is a path or a binary file object "
                            "with a descriptor (fileno())");
            goto done;
        }
        fd = (int)PyLong_AsLong(no);
        Py_DECREF(no);
        if (fd < 0) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "write: fileno() gave no descriptor");
            goto done;
        }
    }
    memset(&wo, 0, sizeof wo);
    wo.compression = comp == 0 ? FC_COMPRESSION_NONE : comp == 1 ? FC_COMPRESSION_ZLIB
                                                                 : FC_COMPRESSION_GZIP;
    wo.work = work;
    wo.work_size = FC_WRITER_WORK_SIZE;
    fc_error_clear(&err);
    if (fc_writer_init_fd(&w, fd, &wo, &err) != FC_OK) {
        raise_error(&err, "<write>", FC_NO_INDEX, FC_NO_INDEX, 0);
        goto done;
    }
    opened = 1;
    items = PyList_Check(batch) ? Py_NewRef(batch) : PyList_New(0);
    if (items == NULL || (!PyList_Check(batch) && PyList_Append(items, batch) != 0))
        goto done;
    for (item = 0; item < PyList_Size(items) && st == FC_OK; item++) {
        keeper_free(&k);
        k.objs = PyList_New(0);
        if (k.objs == NULL || get_columns(&k, m, PyList_GetItem(items, item), cols, &nrec) != 0)
            goto done;
        for (b = 0; b < nrec; b++) {
            size_t need = 0, len = 0;
            const fc_field_desc *fields = m->md != NULL ? m->md->fields : m->sd->context;
            size_t nf = m->md != NULL ? m->md->nfields : m->sd->ncontext;
            size_t present = m->md != NULL ? m->md->present_offset : m->sd->present_offset;
            if (m->md != NULL)
                m->md->init(msg);
            else
                m->sd->init(msg);
            for (i = 0; i < nf; i++)
                if (put_field(msg, fields, i, present, &cols[i], b, nrec) != 0)
                    goto done;
            for (i = 0; m->sd != NULL && i < m->sd->nlists; i++)
                if (put_list(msg, m->sd, i, &cols[nf + i], b, nrec) != 0)
                    goto done;
            st = m->md != NULL ? fc_ex_encoded_size(m->md, msg, defaults, &need, &err)
                               : fc_seq_encoded_size(m->sd, msg, defaults, &need, &err);
            if (st == FC_OK && need > cap) {
                unsigned char *nb = (unsigned char *)realloc(buf, need);
                if (nb == NULL) {
                    PyErr_NoMemory();
                    goto done;
                }
                buf = nb;
                cap = need;
            }
            if (st == FC_OK)
                st = m->md != NULL ? fc_ex_serialize(m->md, msg, defaults, buf, cap, &len, &err)
                                   : fc_seq_serialize(m->sd, msg, defaults, buf, cap, &len, &err);
            if (st != FC_OK) {
                raise_error(&err, "<write>", total + b, FC_NO_INDEX, 0);
                goto done;
            }
            Py_BEGIN_ALLOW_THREADS
            st = fc_writer_write(&w, buf, len);
            Py_END_ALLOW_THREADS
            if (st != FC_OK)
                break;
        }
        total += nrec;
    }
    if (st == FC_OK) {
        Py_BEGIN_ALLOW_THREADS
        st = fc_writer_close(&w);
        Py_END_ALLOW_THREADS
    }
    opened = 0;
    if (st != FC_OK) {
        err = *fc_writer_error(&w);
        if (err.sys_errno != 0) {
            /* OSError(errno, featc's text, dest): the text says how many
             * records reached the file, which .records gives as a number */
            PyObject *exc = PyObject_CallFunction(PyExc_OSError, "isO", err.sys_errno, err.message,
                                                  dest);
            if (exc != NULL) {
                if (set_attr(exc, "records", PyLong_FromUnsignedLongLong(
                                                 (unsigned long long)fc_writer_durable(&w))) == 0)
                    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
                Py_DECREF(exc);
            }
        } else {
            raise_error(&err, "<write>", FC_NO_INDEX, FC_NO_INDEX, 0);
        }
        goto done;
    }
    failed = 0;
done:
    if (opened)
        (void)fc_writer_close(&w);
    if (own && fd >= 0 && close(fd) != 0 && !failed) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, dest);
        failed = 1;
    }
    keeper_free(&k);
    free(cols);
    free(msg);
    free(work);
    free(buf);
    Py_XDECREF(path);
    Py_XDECREF(items);
    return failed ? NULL : PyLong_FromSize_t(total);
}

/* ------------------------------------------------------------ the schema */

static const char *kind_word(fc_kind k)
{
    static const char *const words[] = {"fixed", "varlen", "rows", "sparse", "ragged"};
    return (unsigned)k < 5u ? words[k] : "?";
}

static const char *type_word(fc_type t)
{
    return t == FC_TYPE_BYTES ? "bytes" : t == FC_TYPE_FLOAT ? "float32" : "int64";
}

static PyObject *dims_tuple(const size_t *dims, unsigned rank)
{
    int64_t d[FC_MAX_RANK];
    unsigned k;
    for (k = 0; k < rank; k++)
        d[k] = (int64_t)dims[k];
    return shape_tuple(d, rank);
}

/* d[name] = v (v taken); -1 on failure. */
static int setv(PyObject *d, const char *name, PyObject *v)
{
    int rc;
    if (v == NULL)
        return -1;
    rc = PyDict_SetItemString(d, name, v);
    Py_DECREF(v);
    return rc;
}

/* The features of a message (or a context): key -> description. */
static PyObject *fields_schema(const fc_field_desc *fields, size_t n)
{
    PyObject *out = PyDict_New();
    size_t i;
    unsigned q;
    for (i = 0; out != NULL && i < n; i++) {
        const fc_field_desc *f = &fields[i];
        const fc_field_extra *x = f->extra;
        PyObject *d, *k;
        int bad;
        if (x->hidden)
            continue;
        d = PyDict_New();
        k = key_str(f->key, f->key_len);
        bad = d == NULL || k == NULL || setv(d, "kind", PyUnicode_FromString(kind_word(f->kind))) ||
              setv(d, "dtype", PyUnicode_FromString(type_word(f->type)));
        if (!bad && (f->kind == FC_KIND_FIXED || f->kind == FC_KIND_ROWS || f->kind == FC_KIND_SPARSE))
            bad = setv(d, f->kind == FC_KIND_ROWS ? "row_shape" : "shape",
                       dims_tuple(f->dims, f->rank));
        if (!bad && f->kind != FC_KIND_FIXED)
            bad = setv(d, f->kind == FC_KIND_ROWS ? "max_rows" : "max", PyLong_FromSize_t(f->max));
        if (!bad && x->hash_buckets > 0)
            bad = setv(d, "hash_buckets", PyLong_FromSize_t(x->hash_buckets)) ||
                  (x->hot != 0 && setv(d, "hot", PyUnicode_FromString(x->hot == FC_HOT_ONE
                                                                           ? "one_hot"
                                                                           : "multi_hot")));
        if (!bad && (f->kind == FC_KIND_SPARSE || f->kind == FC_KIND_RAGGED)) {
            /* the keys the record holds it under */
            unsigned nk = f->kind == FC_KIND_SPARSE ? f->rank + 1 : x->nparts + 1;
            PyObject *t = PyTuple_New((Py_ssize_t)nk);
            for (q = 0; t != NULL && q < nk; q++) {
                size_t fi = f->kind == FC_KIND_SPARSE ? x->sparse_fields[q]
                            : q == 0                  ? x->sparse_fields[0]
                                                      : x->parts[q - 1].field;
                PyObject *ks = f->kind == FC_KIND_RAGGED && q > 0 &&
                                       x->parts[q - 1].kind == FC_PART_UNIFORM_ROW_LENGTH
                                   ? Py_NewRef(Py_None)
                                   : key_str(fields[fi].key, fields[fi].key_len);
                if (ks == NULL) {
                    Py_CLEAR(t);
                    break;
                }
                PyTuple_SetItem(t, (Py_ssize_t)q, ks);
            }
            bad = setv(d, "keys", t);
        }
        if (!bad && f->kind == FC_KIND_VARLEN) { /* also read by a SparseFeature? */
            size_t j;
            for (j = 0; j < n && !bad; j++)
                if (fields[j].kind == FC_KIND_SPARSE)
                    for (q = 0; q <= fields[j].rank; q++)
                        if (fields[j].extra->sparse_fields[q] == i)
                            bad = setv(d, "read_by", key_str(fields[j].key, fields[j].key_len));
        }
        if (bad || PyDict_SetItem(out, k, d) != 0)
            Py_CLEAR(out);
        Py_XDECREF(d);
        Py_XDECREF(k);
    }
    return out;
}

static PyObject *lists_schema(const fc_seq_desc *sd)
{
    PyObject *out = PyDict_New();
    size_t j;
    for (j = 0; out != NULL && j < sd->nlists; j++) {
        const fc_list_desc *l = &sd->lists[j];
        PyObject *d, *k;
        int bad;
        if (l->extra != NULL && l->extra->hidden)
            continue;
        d = PyDict_New();
        k = key_str(l->key, l->key_len);
        bad = d == NULL || k == NULL || setv(d, "kind", PyUnicode_FromString(kind_word(l->kind))) ||
              setv(d, "dtype", PyUnicode_FromString(type_word(l->type))) ||
              setv(d, "max_frames", PyLong_FromSize_t(l->max_frames));
        if (!bad && l->kind == FC_KIND_FIXED)
            bad = setv(d, "frame_shape", dims_tuple(l->dims, l->rank));
        else if (!bad)
            bad = setv(d, "max", PyLong_FromSize_t(l->max));
        if (!bad && l->extra != NULL && l->extra->hash_buckets > 0)
            bad = setv(d, "hash_buckets", PyLong_FromSize_t(l->extra->hash_buckets));
        if (bad || PyDict_SetItem(out, k, d) != 0)
            Py_CLEAR(out);
        Py_XDECREF(d);
        Py_XDECREF(k);
    }
    return out;
}

/* {message: {"kind": ..., "features": {...}} or {"kind": ...,
 * "context": {...}, "feature_lists": {...}}}. */
static PyObject *spec_schema(const fcpy_spec *spec)
{
    PyObject *out = PyDict_New();
    size_t i;
    for (i = 0; out != NULL && i < spec->nmessages; i++) {
        const fcpy_message *m = &spec->messages[i];
        PyObject *d = PyDict_New();
        int bad = d == NULL;
        if (!bad && m->md != NULL)
            bad = setv(d, "kind", PyUnicode_FromString("example")) ||
                  setv(d, "features", fields_schema(m->md->fields, m->md->nfields));
        else if (!bad)
            bad = setv(d, "kind", PyUnicode_FromString("sequence_example")) ||
                  setv(d, "context", fields_schema(m->sd->context, m->sd->ncontext)) ||
                  setv(d, "feature_lists", lists_schema(m->sd));
        if (bad || PyDict_SetItemString(out, m->name, d) != 0)
            Py_CLEAR(out);
        Py_XDECREF(d);
    }
    return out;
}

/* ------------------------------------------------------------ the module */

static PyMethodDef module_methods[] = {
    {"read", (PyCFunction)(void (*)(void))mod_read, METH_VARARGS | METH_KEYWORDS,
     "read(source, batch_size=256, *, compression='auto', crc='verify', split=None,\n"
     "     byte_range=None, varlen='sparse', message=None, max_record_size=None,\n"
     "     sync='walk', index=None)\n"
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
     "--sync and --index).  A record that fails raises DataError (ValueError) with\n"
     "featc's message, its record index, offset and path; iteration may go on after\n"
     "it with the next batch."},
    {"parse", (PyCFunction)(void (*)(void))mod_parse, METH_VARARGS | METH_KEYWORDS,
     "parse(record, *, message=None)\n"
     "--\n\n"
     "One serialized record (bytes-like), as tf.io.parse_single_example gives it: a\n"
     "dict of arrays and scalars (VarLen features as their values; bytes as bytes or\n"
     "featc Bytes), or for a sequence_example (context, feature_lists).  A record\n"
     "that does not parse raises DataError with TensorFlow's message first."},
    {"write", (PyCFunction)(void (*)(void))mod_write, METH_VARARGS | METH_KEYWORDS,
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

static PyObject *make_type(const char *name, size_t size, unsigned flags, const fslot *slots)
{
    PyType_Slot out[16];
    PyType_Spec spec;
    size_t k;
    for (k = 0; slots[k].id != 0 && k < 15; k++) {
        union {
            any_fn fn;
            void *p;
        } u;
        u.fn = slots[k].fn;
        out[k].slot = slots[k].id;
        out[k].pfunc = slots[k].fn != NULL ? u.p : slots[k].data;
    }
    out[k].slot = 0;
    out[k].pfunc = NULL;
    spec.name = name;
    spec.basicsize = (int)size;
    spec.itemsize = 0;
    spec.flags = flags;
    spec.slots = out;
    return PyType_FromSpec(&spec);
}

/* numpy's frombuffer, zeros, array and the three dtypes. */
static int import_numpy(void)
{
    static const char *const names[3] = {"int64", "float32", "uint8"};
    PyObject *np = PyImport_ImportModule("numpy"), *dtype;
    int k;
    if (np == NULL)
        return -1;
    g_frombuffer = PyObject_GetAttrString(np, "frombuffer");
    g_zeros = PyObject_GetAttrString(np, "zeros");
    g_array = PyObject_GetAttrString(np, "array");
    g_asarray = PyObject_GetAttrString(np, "asarray");
    g_ascontiguous = PyObject_GetAttrString(np, "ascontiguousarray");
    dtype = PyObject_GetAttrString(np, "dtype");
    Py_DECREF(np);
    if (g_frombuffer == NULL || g_zeros == NULL || g_array == NULL || g_asarray == NULL ||
        g_ascontiguous == NULL || dtype == NULL) {
        Py_XDECREF(dtype);
        return -1;
    }
    for (k = 0; k < 3; k++)
        if ((g_dtype[k] = PyObject_CallFunction(dtype, "s", names[k])) == NULL)
            break;
    Py_DECREF(dtype);
    return k == 3 ? 0 : -1;
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
    g_spec = spec;
    module_def.m_name = spec->module;
    if (import_numpy() != 0)
        return NULL;
    g_block_type = make_type("featc.Block", sizeof(block_object), Py_TPFLAGS_DEFAULT, block_slots);
    g_bytes_type = make_type("featc.Bytes", sizeof(bytes_object),
                             Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, bytes_slots);
    g_reader_type = make_type("featc.Reader", sizeof(reader_object),
                              Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, reader_slots);
    g_ragged_type = (PyObject *)PyStructSequence_NewType(&ragged_desc);
    g_sparse_type = (PyObject *)PyStructSequence_NewType(&sparse_desc);
    if (g_block_type == NULL || g_bytes_type == NULL || g_reader_type == NULL ||
        g_ragged_type == NULL || g_sparse_type == NULL)
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
    g_error = PyErr_NewExceptionWithDoc(
        PyUnicode_AsUTF8AndSize(base, NULL),
        "A record or file featc could not read or parse: str() is the whole message;\n"
        ".message featc's text (TensorFlow's first), .record the record's index in its\n"
        "file, .offset its byte offset, .path the file, .status featc's status name.",
        error_base, NULL);
    Py_DECREF(base);
    Py_DECREF(error_base);
    if (g_error == NULL)
        return NULL;
    mod = PyModule_Create(&module_def);
    if (mod == NULL)
        return NULL;
    names = PyTuple_New((Py_ssize_t)spec->nmessages);
    for (i = 0; names != NULL && i < spec->nmessages; i++)
        PyTuple_SetItem(names, (Py_ssize_t)i, PyUnicode_FromString(spec->messages[i].name));
    if (add(mod, "DataError", g_error) != 0 || add(mod, "Bytes", g_bytes_type) != 0 ||
        add(mod, "Ragged", g_ragged_type) != 0 || add(mod, "Sparse", g_sparse_type) != 0 ||
        add(mod, "Reader", g_reader_type) != 0 || names == NULL ||
        PyModule_AddObject(mod, "messages", names) != 0 ||
        PyModule_AddObject(mod, "schema", spec_schema(spec)) != 0 ||
        PyModule_AddStringConstant(mod, "spec", spec->spec) != 0 ||
        PyModule_AddStringConstant(mod, "featc_version", spec->version) != 0) {
        Py_DECREF(mod);
        return NULL;
    }
    return mod;
}
