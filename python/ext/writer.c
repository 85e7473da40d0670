/* write(): batches (columns, as read() gives them) back into records
 * through the spec's serializer, into a TFRecord file. */
#include "ext.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

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
    PyObject *arr, *c, *shape;
    Py_ssize_t r, i;
    int ok, kind;
    if (k->nbufs == sizeof k->bufs / sizeof k->bufs[0]) {
        PyErr_SetString(PyExc_ValueError, "write: too many arrays in one batch");
        return -1;
    }
    arr = PyObject_CallFunctionObjArgs(fcpy_g.asarray, obj, NULL);
    if (arr == NULL)
        return -1;
    kind = fcpy_dtype_kind(arr);
    if (kind < 0) {
        Py_DECREF(arr);
        return -1;
    }
    ok = kind != 0 && strchr(dt == DT_INT64 ? "iub" : "fiub", kind) != NULL;
    if (!ok) {
        PyErr_Format(PyExc_TypeError, "%s: an array of %s, not of dtype kind '%c'", what,
                     dt == DT_INT64 ? "integers" : "numbers", kind);
        Py_DECREF(arr);
        return -1;
    }
    c = PyObject_CallFunctionObjArgs(fcpy_g.ascontiguous, arr, fcpy_g.dtype[dt], NULL);
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
    if (PyObject_TypeCheck(obj, (PyTypeObject *)fcpy_g.bytes_type)) {
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
                            : PyObject_CallFunction(fcpy_g.asarray, "Os", obj, "O");
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
                              : get_numeric(k, obj, fcpy_dtype_of(t), what, out);
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

/* `bytes as T[dims]`: read()'s or parse()'s tensors of the feature as the
 * record's bytes again, each tensor's values little-endian: an object
 * array of the leading shape (a new reference).  Anything that is not an
 * array of numbers (bytes given as bytes) is returned as it is. */
static PyObject *raw_of_tensors(PyObject *obj, const fc_field_as *as, const char *what)
{
    PyObject *a, *dt = NULL, *le = NULL, *conv = NULL, *back = NULL, *eq = NULL, *rows = NULL;
    PyObject *shape = NULL, *lead = NULL, *out = NULL, *flat = NULL;
    Py_ssize_t r, i, n;
    int kind;
    a = PyObject_CallFunctionObjArgs(fcpy_g.asarray, obj, NULL);
    if (a == NULL)
        return NULL;
    kind = fcpy_dtype_kind(a);
    if (kind <= 0 || strchr("iubf", kind) == NULL) {
        Py_DECREF(a);
        return PyErr_Occurred() ? NULL : Py_NewRef(obj);
    }
    shape = PyObject_GetAttrString(a, "shape");
    r = shape != NULL ? PyTuple_Size(shape) : -1;
    if (r < (Py_ssize_t)as->rank) {
        if (r >= 0)
            PyErr_Format(PyExc_ValueError, "%s: an array of shape %S for a tensor of %u "
                         "dimensions ('as %s')", what, shape, as->rank, fc_as_name(as->type));
        goto done;
    }
    for (i = 0; i < (Py_ssize_t)as->rank; i++)
        if (PyLong_AsSsize_t(PyTuple_GetItem(shape, r - as->rank + i)) != (Py_ssize_t)as->dims[i]) {
            PyErr_Format(PyExc_ValueError, "%s: an array of shape %S does not end in the "
                         "tensor's shape ('as %s' of %zu values)", what, shape,
                         fc_as_name(as->type), as->elems);
            goto done;
        }
    /* the values in the type, checked to be the same numbers */
    dt = Py_NewRef(fcpy_g.dtype[fcpy_dtype_of_as(as->type)]);
    le = PyObject_CallMethod(dt, "newbyteorder", "s", "<");
    conv = le != NULL ? PyObject_CallMethod(a, "astype", "O", le) : NULL;
    if (conv != NULL) {
        PyObject *adt = PyObject_GetAttrString(a, "dtype");
        back = adt != NULL ? PyObject_CallMethod(conv, "astype", "O", adt) : NULL;
        Py_XDECREF(adt);
    }
    if (back == NULL)
        goto done;
    {
        PyObject *np = PyImport_ImportModule("numpy");
        PyObject *fn = np != NULL ? PyObject_GetAttrString(np, "array_equal") : NULL;
        PyObject *kw = fn != NULL ? Py_BuildValue("{sO}", "equal_nan", kind == 'f' ? Py_True : Py_False) : NULL;
        PyObject *args = kw != NULL ? PyTuple_Pack(2, back, a) : NULL;
        eq = args != NULL ? PyObject_Call(fn, args, kw) : NULL;
        Py_XDECREF(np);
        Py_XDECREF(fn);
        Py_XDECREF(kw);
        Py_XDECREF(args);
    }
    if (eq == NULL)
        goto done;
    if (!PyObject_IsTrue(eq)) {
        PyErr_Format(PyExc_ValueError, "%s: values that are not %s numbers ('as %s')", what,
                     fc_as_name(as->type), fc_as_name(as->type));
        goto done;
    }
    lead = PyTuple_GetSlice(shape, 0, r - (Py_ssize_t)as->rank);
    rows = lead != NULL ? PyObject_CallMethod(conv, "reshape", "(ni)",
                                              (Py_ssize_t)-1, (int)as->elems) : NULL;
    out = lead != NULL ? PyObject_CallFunction(fcpy_g.zeros, "Os", lead, "O") : NULL;
    flat = out != NULL ? PyObject_CallMethod(out, "reshape", "(i)", -1) : NULL;
    n = rows != NULL && flat != NULL ? PySequence_Size(rows) : -1;
    for (i = 0; i < n; i++) {
        PyObject *row = PySequence_GetItem(rows, i);
        PyObject *b = row != NULL ? PyObject_CallMethod(row, "tobytes", NULL) : NULL;
        Py_XDECREF(row);
        if (b == NULL || PySequence_SetItem(flat, i, b) != 0) {
            Py_XDECREF(b);
            Py_CLEAR(out);
            break;
        }
        Py_DECREF(b);
    }
    if (n < 0)
        Py_CLEAR(out);
done:
    Py_XDECREF(a);
    Py_XDECREF(dt);
    Py_XDECREF(le);
    Py_XDECREF(conv);
    Py_XDECREF(back);
    Py_XDECREF(eq);
    Py_XDECREF(rows);
    Py_XDECREF(shape);
    Py_XDECREF(lead);
    Py_XDECREF(flat);
    return out;
}

/* Reads dict[key] of the batch (absent: W_NONE) into c; as: the feature's
 * `as` (bytes decoded as a tensor: read()'s arrays are taken back), or
 * NULL. */
static int get_column(keeper *k, PyObject *dict, const char *key, size_t key_len, fc_type t,
                      const fc_field_as *as, wcol *c)
{
    PyObject *name = fcpy_key_str(key, key_len), *v;
    memset(c, 0, sizeof *c);
    c->key = key;
    if (name == NULL)
        return -1;
    v = PyDict_GetItemWithError(dict, name);
    Py_DECREF(name);
    if (v == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if (fcpy_is_sparse(v)) {
        c->form = W_SPARSE;
        return get_numeric(k, PyTuple_GetItem(v, 0), DT_INT64, key, &c->indices) != 0 ||
                       get_values(k, PyTuple_GetItem(v, 1), t, key, &c->values) != 0 ||
                       get_numeric(k, PyTuple_GetItem(v, 2), DT_INT64, key, &c->dense_shape) != 0
                   ? -1
                   : 0;
    }
    if (fcpy_is_ragged(v)) {
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
    if (as != NULL && as->rank > 0) {
        int rc;
        PyObject *raw = raw_of_tensors(v, as, key);
        if (raw == NULL)
            return -1;
        rc = PyList_Append(k->objs, raw) != 0 ? -1 : get_values(k, raw, t, key, &c->values);
        Py_DECREF(raw);
        return rc;
    }
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
/* A FixedLen feature, or rows of a RaggedFeature given dense: one
 * record's part of a [B, ...] array. */
static int put_fixed(void *msg, const fc_field_desc *fields, size_t i, size_t present_offset,
                     wcol *c, size_t b, size_t nrec)
{
    const fc_field_desc *f = &fields[i];
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

/* A VarLen feature (or RaggedFeature rows) from a Ragged, a Sparse or a
 * dense [B, n] array. */
static int put_varlen_field(void *msg, const fc_field_desc *fields, size_t i, size_t present_offset,
                            wcol *c, size_t b, size_t nrec)
{
    const fc_field_desc *f = &fields[i];
    size_t lo, hi;
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

/* A SparseFeature from a Sparse with indices [N, rank + 1]: its index
 * fields and its values. */
static int put_sparse(void *msg, const fc_field_desc *fields, size_t i, size_t present_offset,
                      wcol *c, size_t b)
{
    const fc_field_desc *f = &fields[i];
    const fc_field_extra *x = f->extra;
    size_t lo, hi;
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

/* A RaggedFeature with partitions from a Ragged with as many row splits. */
static int put_ragged(void *msg, const fc_field_desc *fields, size_t i, size_t present_offset,
                      wcol *c, size_t b)
{
    const fc_field_desc *f = &fields[i];
    const fc_field_extra *x = f->extra;
    size_t lo, hi;
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

static int put_field(void *msg, const fc_field_desc *fields, size_t i, size_t present_offset,
                     wcol *c, size_t b, size_t nrec)
{
    const fc_field_desc *f = &fields[i];
    if (c->form == W_NONE)
        return 0;
    if (f->kind == FC_KIND_FIXED || (f->kind == FC_KIND_ROWS && c->form == W_DENSE))
        return put_fixed(msg, fields, i, present_offset, c, b, nrec);
    if (f->kind == FC_KIND_VARLEN || f->kind == FC_KIND_ROWS)
        return put_varlen_field(msg, fields, i, present_offset, c, b, nrec);
    if (f->kind == FC_KIND_SPARSE)
        return put_sparse(msg, fields, i, present_offset, c, b);
    if (f->kind == FC_KIND_RAGGED)
        return put_ragged(msg, fields, i, present_offset, c, b);
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
        if (get_column(k, ctx, f->key, f->key_len, f->type, f->extra->as, &cols[i]) != 0)
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
        if (get_column(k, lists, l->key, l->key_len, l->type, l->extra != NULL ? l->extra->as : NULL,
                       c) != 0)
            return -1;
        if (c->form == W_NONE && l->kind == FC_KIND_FIXED && !l->allow_missing) {
            PyErr_Format(PyExc_ValueError, "the batch lacks the feature list %s, which the "
                         "spec requires", l->key);
            return -1;
        }
        if (c->form != W_NONE && l->kind == FC_KIND_FIXED && lengths != NULL) {
            PyObject *name = fcpy_key_str(l->key, l->key_len);
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

/* One write(): the message, its columns and struct, the serialized
 * record's buffer, and the writer. */
typedef struct write_job {
    const fcpy_message *m;
    unsigned defaults;
    keeper k;
    wcol *cols;
    void *msg, *work;
    unsigned char *buf;
    size_t cap;
    fc_writer w;
    int opened;
    fc_error err;
    size_t total; /* records written before the batch at hand */
} write_job;

/* dest as a descriptor: a path opened (*own set), or a binary file
 * object's fileno() after its flush(); 0, or -1 with an exception. */
static int open_dest(PyObject *dest, int append, int *fd, int *own, PyObject **path)
{
    PyObject *r, *no;
    if (PyUnicode_Check(dest) || PyBytes_Check(dest) || PyObject_HasAttrString(dest, "__fspath__")) {
        const char *p;
        if (!PyUnicode_FSConverter(dest, path))
            return -1;
        p = PyBytes_AsString(*path);
        Py_BEGIN_ALLOW_THREADS
        *fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0666);
        Py_END_ALLOW_THREADS
        if (*fd < 0) {
            PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, dest);
            return -1;
        }
        *own = 1;
        return 0;
    }
    r = PyObject_CallMethod(dest, "flush", NULL);
    Py_XDECREF(r);
    no = r != NULL ? PyObject_CallMethod(dest, "fileno", NULL) : NULL;
    if (no == NULL) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "write: dest is a path or a binary file object "
                        "with a descriptor (fileno())");
        return -1;
    }
    *fd = (int)PyLong_AsLong(no);
    Py_DECREF(no);
    if (*fd < 0) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "write: fileno() gave no descriptor");
        return -1;
    }
    return 0;
}

/* Record b of the nrec in j->cols: its struct filled, serialized and
 * written.  FC_OK; the writer's failure (its error in j->w); or FC_ERR_ARG
 * with a Python exception set. */
static fc_status write_record(write_job *j, size_t b, size_t nrec)
{
    const fcpy_message *m = j->m;
    const fc_field_desc *fields = m->md != NULL ? m->md->fields : m->sd->context;
    size_t nf = m->md != NULL ? m->md->nfields : m->sd->ncontext;
    size_t present = m->md != NULL ? m->md->present_offset : m->sd->present_offset;
    size_t need = 0, len = 0, i;
    fc_status st;
    if (m->md != NULL)
        m->md->init(j->msg);
    else
        m->sd->init(j->msg);
    for (i = 0; i < nf; i++)
        if (put_field(j->msg, fields, i, present, &j->cols[i], b, nrec) != 0)
            return FC_ERR_ARG;
    for (i = 0; m->sd != NULL && i < m->sd->nlists; i++)
        if (put_list(j->msg, m->sd, i, &j->cols[nf + i], b, nrec) != 0)
            return FC_ERR_ARG;
    st = m->md != NULL ? fc_ex_encoded_size(m->md, j->msg, j->defaults, &need, &j->err)
                       : fc_seq_encoded_size(m->sd, j->msg, j->defaults, &need, &j->err);
    if (st == FC_OK && need > j->cap) {
        unsigned char *nb = (unsigned char *)realloc(j->buf, need);
        if (nb == NULL) {
            PyErr_NoMemory();
            return FC_ERR_ARG;
        }
        j->buf = nb;
        j->cap = need;
    }
    if (st == FC_OK)
        st = m->md != NULL
                 ? fc_ex_serialize(m->md, j->msg, j->defaults, j->buf, j->cap, &len, &j->err)
                 : fc_seq_serialize(m->sd, j->msg, j->defaults, j->buf, j->cap, &len, &j->err);
    if (st != FC_OK) {
        fcpy_raise_error(&j->err, "<write>", j->total + b, FC_NO_INDEX, 0);
        return FC_ERR_ARG;
    }
    Py_BEGIN_ALLOW_THREADS
    st = fc_writer_write(&j->w, j->buf, len);
    Py_END_ALLOW_THREADS
    return st;
}

/* The exception set now, its message prefixed with "record N: " (a
 * ValueError or TypeError; featc's DataError names its record already). */
static void name_record(size_t n)
{
    PyObject *type, *value, *tb, *text;
    if (!PyErr_ExceptionMatches(PyExc_ValueError) && !PyErr_ExceptionMatches(PyExc_TypeError))
        return;
    if (fcpy_g.error != NULL && PyErr_ExceptionMatches(fcpy_g.error))
        return;
    PyErr_Fetch(&type, &value, &tb);
    text = value != NULL ? PyObject_Str(value) : NULL;
    if (text == NULL) {
        PyErr_Restore(type, value, tb);
        return;
    }
    PyErr_Format(type, "record %zu: %U", n, text);
    Py_DECREF(text);
    Py_DECREF(type);
    Py_XDECREF(value);
    Py_XDECREF(tb);
}

/* One batch's records; as write_record returns. */
/* record: batch is one record made into a batch, which is one record even
 * when it has no feature at all (no column to count its records by). */
static fc_status write_batch(write_job *j, PyObject *batch, int record)
{
    size_t nrec = 0, b;
    fc_status st = FC_OK;
    keeper_free(&j->k);
    j->k.objs = PyList_New(0);
    if (j->k.objs == NULL || get_columns(&j->k, j->m, batch, j->cols, &nrec) != 0)
        return FC_ERR_ARG;
    if (record && nrec == 0)
        nrec = 1;
    for (b = 0; b < nrec && st == FC_OK; b++)
        st = write_record(j, b, nrec);
    j->total += nrec;
    return st;
}

/* The writer's failure as Python sees it: OSError(errno, featc's text,
 * dest) with .records, the records that reached the file, for a system
 * error; else DataError. */
static void raise_write_error(write_job *j, PyObject *dest)
{
    fc_error err = *fc_writer_error(&j->w);
    if (err.sys_errno != 0) {
        PyObject *exc = PyObject_CallFunction(PyExc_OSError, "isO", err.sys_errno, err.message,
                                              dest);
        if (exc != NULL) {
            if (fcpy_set_attr(exc, "records", PyLong_FromUnsignedLongLong(
                                             (unsigned long long)fc_writer_durable(&j->w))) == 0)
                PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
            Py_DECREF(exc);
        }
    } else {
        fcpy_raise_error(&err, "<write>", FC_NO_INDEX, FC_NO_INDEX, 0);
    }
}

PyObject *fcpy_write(PyObject *module, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"dest", "batch", "compression", "message", "append",
                             "write_defaults", NULL};
    PyObject *dest, *batch, *compression = NULL, *message = Py_None, *path = NULL;
    PyObject *items = NULL, *item;
    int append = 0, write_defaults = 0, fd = -1, own = 0, failed = 1, lone = 0;
    fc_writer_options wo;
    fc_status st = FC_OK;
    write_job j;
    (void)module;
    memset(&j, 0, sizeof j);
    memset(&wo, 0, sizeof wo);
    wo.compression = FC_COMPRESSION_NONE;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OO|$OOpp", kwlist, &dest, &batch, &compression,
                                     &message, &append, &write_defaults))
        return NULL;
    j.defaults = write_defaults ? FC_WRITE_DEFAULTS : FC_OMIT_DEFAULTS;
    if ((j.m = fcpy_find_message(message)) == NULL ||
        (compression != NULL && fcpy_compression_option(compression, 0, &wo.compression) != 0))
        return NULL;
    j.cols = (wcol *)calloc(fcpy_ncols_of(j.m) + 1, sizeof *j.cols);
    j.msg = malloc(j.m->md != NULL ? j.m->md->size : j.m->sd->size);
    j.work = malloc(FC_WRITER_WORK_SIZE);
    if (j.cols == NULL || j.msg == NULL || j.work == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (open_dest(dest, append, &fd, &own, &path) != 0)
        goto done;
    wo.work = j.work;
    wo.work_size = FC_WRITER_WORK_SIZE;
    fc_error_clear(&j.err);
    if (fc_writer_init_fd(&j.w, fd, &wo, &j.err) != FC_OK) {
        fcpy_raise_error(&j.err, "<write>", FC_NO_INDEX, FC_NO_INDEX, 0);
        goto done;
    }
    j.opened = 1;
    /* one batch or record, or an iterable of them (a list, a generator) */
    if (PyDict_Check(batch) || PyTuple_Check(batch)) {
        PyObject *pack = PyTuple_Pack(1, batch);
        lone = 1;
        items = pack != NULL ? PyObject_GetIter(pack) : NULL;
        Py_XDECREF(pack);
    } else if ((items = PyObject_GetIter(batch)) == NULL &&
               PyErr_ExceptionMatches(PyExc_TypeError)) {
        PyErr_Clear();
        PyErr_SetString(PyExc_TypeError, "write: a batch or a record (a dict; for a "
                        "sequence_example a tuple), or an iterable of them");
    }
    if (items == NULL)
        goto done;
    while (st == FC_OK && (item = PyIter_Next(items)) != NULL) {
        int form = fcpy_check_keys(j.m, item) != 0 ? -1 : fcpy_record_form(j.m, item);
        PyObject *one = NULL;
        /* an item no feature tells apart: a record, but for a lone
         * dict, which write() has always taken as a batch */
        if (form == FCPY_RECORD || (form == FCPY_EITHER && !lone))
            one = fcpy_record_batch(j.m, item);
        if (form < 0 || (one == NULL && form != FCPY_BATCH && !(form == FCPY_EITHER && lone))) {
            name_record(j.total);
            Py_DECREF(item);
            goto done;
        }
        st = write_batch(&j, one != NULL ? one : item, one != NULL);
        if (st != FC_OK && one != NULL)
            name_record(j.total);
        Py_XDECREF(one);
        Py_DECREF(item);
        if (st != FC_OK && PyErr_Occurred())
            goto done;
    }
    if (PyErr_Occurred())
        goto done;
    if (st == FC_OK) {
        Py_BEGIN_ALLOW_THREADS
        st = fc_writer_close(&j.w);
        Py_END_ALLOW_THREADS
    }
    j.opened = 0;
    if (st != FC_OK) {
        raise_write_error(&j, dest);
        goto done;
    }
    failed = 0;
done:
    if (j.opened)
        (void)fc_writer_close(&j.w);
    if (own && fd >= 0 && close(fd) != 0 && !failed) {
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, dest);
        failed = 1;
    }
    keeper_free(&j.k);
    free(j.cols);
    free(j.msg);
    free(j.work);
    free(j.buf);
    Py_XDECREF(path);
    Py_XDECREF(items);
    return failed ? NULL : PyLong_FromSize_t(j.total);
}
