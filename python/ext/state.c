/* What every file of featc's Python layer takes from below (ext.h): the
 * module's state, the type maker, the spec's messages by name, and the
 * option parsers read(), parse(), write() and segments() share.  Calls
 * nothing of the layer's other files. */
#include "ext.h"

fcpy_state fcpy_g;

/* ------------------------------------------------------------ options */

const fcpy_message *fcpy_find_message(PyObject *name)
{
    size_t i;
    const char *s;
    if (name == NULL || name == Py_None)
        return &fcpy_g.spec->messages[0];
    if (!PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "message must be a str");
        return NULL;
    }
    s = PyUnicode_AsUTF8AndSize(name, NULL);
    if (s == NULL)
        return NULL;
    for (i = 0; i < fcpy_g.spec->nmessages; i++)
        if (strcmp(fcpy_g.spec->messages[i].name, s) == 0)
            return &fcpy_g.spec->messages[i];
    PyErr_Format(PyExc_ValueError, "no message named %R in %s", name, fcpy_g.spec->spec);
    return NULL;
}

/* s's UTF-8 for option what, or NULL with a TypeError. */
static const char *option_str(PyObject *s, const char *what)
{
    if (!PyUnicode_Check(s)) {
        PyErr_Format(PyExc_TypeError, "%s must be a str, not %S", what, (PyObject *)Py_TYPE(s));
        return NULL;
    }
    return PyUnicode_AsUTF8AndSize(s, NULL);
}

/* s is one of the words (index into *out), or a ValueError naming them. */
int fcpy_word_option(PyObject *s, const char *what, const char *const *words, int *out)
{
    const char *v = option_str(s, what);
    int k;
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

/* The words of the runtime's parsers (fc_input.h), as the CLI reads them;
 * compression also in TensorFlow's spellings ("", "ZLIB", "GZIP"). */
int fcpy_compression_option(PyObject *s, int with_auto, fc_compression *out)
{
    const char *v = option_str(s, "compression");
    if (v == NULL)
        return -1;
    if (fc_input_parse_compression(v, out) == 0 && (with_auto || *out != FC_COMPRESSION_AUTO))
        return 0;
    PyErr_Format(PyExc_ValueError, "compression must be one of %s, not %R",
                 with_auto ? "'auto', 'none', 'zlib', 'gzip'" : "'none', 'zlib', 'gzip'", s);
    return -1;
}

int fcpy_crc_option(PyObject *s, fc_crc_policy *out)
{
    const char *v = option_str(s, "crc");
    if (v == NULL)
        return -1;
    if (fc_input_parse_crc(v, out) == 0)
        return 0;
    PyErr_Format(PyExc_ValueError, "crc must be one of 'verify', 'skip', 'none', not %R", s);
    return -1;
}

int fcpy_sync_option(PyObject *s, fc_sync_method *out)
{
    const char *v = option_str(s, "sync");
    if (v == NULL)
        return -1;
    if (fc_input_parse_sync(v, out) == 0)
        return 0;
    PyErr_Format(PyExc_ValueError, "sync must be one of 'walk', 'checksum', not %R", s);
    return -1;
}

int fcpy_size_option(PyObject *v, const char *what, Py_ssize_t lo, Py_ssize_t hi, size_t *out)
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
int fcpy_pair_option(PyObject *v, const char *what, uint64_t *a, uint64_t *b)
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

/* ------------------------------------------------------------ types and sources */

PyObject *fcpy_make_type(const char *name, size_t size, unsigned flags, const fslot *slots)
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

/* A source read() opens by name: neither bytes-like nor a file object. */
int fcpy_source_is_path(PyObject *s)
{
    /* (the last branch of reader.c's reader_open_source: keep the two together) */
    return !PyObject_CheckBuffer(s) && !PyObject_HasAttrString(s, "getbuffer") &&
           !PyObject_HasAttrString(s, "read");
}
