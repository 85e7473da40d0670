/* A consumer of Arrow's PyCapsule interface, written from the C Data
 * Interface and PyCapsule specifications, for test_arrow.py: it moves the
 * structs out of the capsules (as the protocol says a consumer does),
 * converts every row to Python values by the formats alone, and releases
 * what it took exactly once, checking that release leaves NULL behind.
 *
 *   rows(obj)         obj.__arrow_c_array__() -> a list of dicts, one per row
 *   stream_rows(obj)  obj.__arrow_c_stream__() -> the rows of every batch;
 *                     a stream error raises RuntimeError with its message
 *   releases()        release callbacks this module has called */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "featc/fc_arrow.h"

static long released;

static PyObject *value(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i);

/* Offset k of a list or binary array: 64-bit for "+L" and "Z", 32-bit for
 * "+l" and "z". */
static int64_t offs(const char *f, const struct ArrowArray *a, int64_t k)
{
    if (strcmp(f, "+L") == 0 || strcmp(f, "Z") == 0)
        return ((const int64_t *)a->buffers[1])[k];
    return ((const int32_t *)a->buffers[1])[k];
}

static PyObject *value(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i)
{
    const char *f = s->format;
    int64_t k, at = a->offset + i;
    if (strcmp(f, "l") == 0)
        return PyLong_FromLongLong((long long)((const int64_t *)a->buffers[1])[at]);
    if (strcmp(f, "f") == 0)
        return PyFloat_FromDouble((double)((const float *)a->buffers[1])[at]);
    /* the `as` types: Int8 .. Int32, Float16, Float64 (the C Data Interface's formats) */
    if (strcmp(f, "c") == 0)
        return PyLong_FromLong(((const int8_t *)a->buffers[1])[at]);
    if (strcmp(f, "C") == 0)
        return PyLong_FromLong(((const uint8_t *)a->buffers[1])[at]);
    if (strcmp(f, "s") == 0)
        return PyLong_FromLong(((const int16_t *)a->buffers[1])[at]);
    if (strcmp(f, "S") == 0)
        return PyLong_FromLong(((const uint16_t *)a->buffers[1])[at]);
    if (strcmp(f, "i") == 0)
        return PyLong_FromLong((long)((const int32_t *)a->buffers[1])[at]);
    if (strcmp(f, "g") == 0)
        return PyFloat_FromDouble(((const double *)a->buffers[1])[at]);
    if (strcmp(f, "e") == 0) { /* binary16: sign, 5 exponent bits, 10 mantissa bits */
        unsigned h = ((const uint16_t *)a->buffers[1])[at], e = (h >> 10) & 31u, m = h & 1023u;
        double v = e == 0 ? ldexp((double)m, -24)
                   : e == 31 ? (m != 0 ? NAN : INFINITY)
                             : ldexp(1024.0 + m, (int)e - 25);
        return PyFloat_FromDouble((h & 0x8000u) ? -v : v);
    }
    if (strcmp(f, "Z") == 0 || strcmp(f, "z") == 0)
        return PyBytes_FromStringAndSize((const char *)a->buffers[2] + offs(f, a, at),
                                         (Py_ssize_t)(offs(f, a, at + 1) - offs(f, a, at)));
    if (strcmp(f, "+L") == 0 || strcmp(f, "+l") == 0 || strncmp(f, "+w:", 3) == 0) {
        int64_t lo, hi;
        PyObject *list;
        if (f[1] == 'L' || f[1] == 'l') {
            lo = offs(f, a, at);
            hi = offs(f, a, at + 1);
        } else {
            int64_t n = atoll(f + 3);
            lo = at * n;
            hi = lo + n;
        }
        list = PyList_New((Py_ssize_t)(hi - lo));
        for (k = lo; list != NULL && k < hi; k++) {
            PyObject *v = value(s->children[0], a->children[0], k);
            if (v == NULL) {
                Py_CLEAR(list);
                break;
            }
            PyList_SET_ITEM(list, (Py_ssize_t)(k - lo), v);
        }
        return list;
    }
    if (strcmp(f, "+s") == 0) {
        PyObject *d = PyDict_New();
        for (k = 0; d != NULL && k < s->n_children; k++) {
            PyObject *v = value(s->children[k], a->children[k], at);
            if (v == NULL || PyDict_SetItemString(d, s->children[k]->name, v) != 0)
                Py_CLEAR(d);
            Py_XDECREF(v);
        }
        return d;
    }
    PyErr_Format(PyExc_ValueError, "format %s is not one featc gives", f);
    return NULL;
}

/* The struct moved out of a capsule: copied, the capsule's marked released. */
static void *take(PyObject *cap, const char *name, size_t size, void *dst)
{
    void *p = PyCapsule_GetPointer(cap, name);
    if (p == NULL)
        return NULL;
    memcpy(dst, p, size);
    if (strcmp(name, "arrow_schema") == 0)
        ((struct ArrowSchema *)p)->release = NULL;
    else if (strcmp(name, "arrow_array") == 0)
        ((struct ArrowArray *)p)->release = NULL;
    else
        ((struct ArrowArrayStream *)p)->release = NULL;
    return dst;
}

static int release_schema(struct ArrowSchema *s)
{
    s->release(s);
    released++;
    if (s->release != NULL) {
        PyErr_SetString(PyExc_AssertionError, "a schema's release left release set");
        return -1;
    }
    return 0;
}

static int release_array(struct ArrowArray *a)
{
    a->release(a);
    released++;
    if (a->release != NULL) {
        PyErr_SetString(PyExc_AssertionError, "an array's release left release set");
        return -1;
    }
    return 0;
}

/* Every row of the struct array a, appended to out. */
static int append_rows(const struct ArrowSchema *s, const struct ArrowArray *a, PyObject *out)
{
    int64_t i;
    if (strcmp(s->format, "+s") != 0 || a->n_children != s->n_children || a->null_count != 0) {
        PyErr_SetString(PyExc_AssertionError, "not a struct array without nulls");
        return -1;
    }
    for (i = 0; i < a->length; i++) {
        PyObject *row = value(s, a, i);
        if (row == NULL || PyList_Append(out, row) != 0) {
            Py_XDECREF(row);
            return -1;
        }
        Py_DECREF(row);
    }
    return 0;
}

static PyObject *rows(PyObject *self, PyObject *obj)
{
    struct ArrowSchema s;
    struct ArrowArray a;
    PyObject *pair, *out;
    int ok;
    (void)self;
    pair = PyObject_CallMethod(obj, "__arrow_c_array__", NULL);
    if (pair == NULL)
        return NULL;
    if (!PyTuple_Check(pair) || PyTuple_Size(pair) != 2 ||
        take(PyTuple_GetItem(pair, 0), "arrow_schema", sizeof s, &s) == NULL ||
        take(PyTuple_GetItem(pair, 1), "arrow_array", sizeof a, &a) == NULL) {
        Py_DECREF(pair);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "__arrow_c_array__ gave no (schema, array)");
        return NULL;
    }
    Py_DECREF(pair); /* (the capsules' structs were moved: their destructors do nothing) */
    out = PyList_New(0);
    ok = out != NULL && append_rows(&s, &a, out) == 0;
    if (release_array(&a) != 0 || release_schema(&s) != 0)
        ok = 0;
    if (!ok)
        Py_CLEAR(out);
    return out;
}

static PyObject *stream_rows(PyObject *self, PyObject *obj)
{
    struct ArrowArrayStream st;
    struct ArrowSchema s;
    PyObject *cap, *out;
    int ok = 1, rc;
    (void)self;
    cap = PyObject_CallMethod(obj, "__arrow_c_stream__", NULL);
    if (cap == NULL)
        return NULL;
    if (take(cap, "arrow_array_stream", sizeof st, &st) == NULL) {
        Py_DECREF(cap);
        return NULL;
    }
    Py_DECREF(cap);
    out = PyList_New(0);
    if (out == NULL || st.get_schema(&st, &s) != 0) {
        st.release(&st);
        Py_XDECREF(out);
        return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_RuntimeError, "get_schema failed");
    }
    for (;;) {
        struct ArrowArray a;
        /* (the stream takes the GIL to read: let it) */
        Py_BEGIN_ALLOW_THREADS
        rc = st.get_next(&st, &a);
        Py_END_ALLOW_THREADS
        if (rc != 0) {
            const char *e = st.get_last_error(&st);
            PyErr_Format(PyExc_RuntimeError, "%s", e != NULL ? e : "get_next failed");
            ok = 0;
            break;
        }
        if (a.release == NULL)
            break;
        if (append_rows(&s, &a, out) != 0)
            ok = 0;
        if (release_array(&a) != 0)
            ok = 0;
        if (!ok)
            break;
    }
    if (release_schema(&s) != 0)
        ok = 0;
    st.release(&st);
    released++;
    if (st.release != NULL) {
        PyErr_SetString(PyExc_AssertionError, "a stream's release left release set");
        ok = 0;
    }
    if (!ok)
        Py_CLEAR(out);
    return out;
}

static PyObject *releases(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyLong_FromLong(released);
}

static PyMethodDef methods[] = {
    {"rows", rows, METH_O, "obj.__arrow_c_array__() as a list of row dicts."},
    {"stream_rows", stream_rows, METH_O, "obj.__arrow_c_stream__() as a list of row dicts."},
    {"releases", releases, METH_NOARGS, "Release callbacks called."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef def = {PyModuleDef_HEAD_INIT, "arrow_consumer", NULL, -1, methods,
                                 NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_arrow_consumer(void);
PyMODINIT_FUNC PyInit_arrow_consumer(void)
{
    return PyModule_Create(&def);
}
