/* featc's Python layer: batches as Arrow arrays (read(format='arrow')),
 * through Arrow's PyCapsule interface: a featc.ArrowBatch has
 * __arrow_c_schema__ and __arrow_c_array__, a reader in that format
 * __arrow_c_stream__, so that pyarrow, Polars, DuckDB and pandas take them
 * directly.
 *
 * A batch is exported once (fc_arrow_export: the batch's block is taken
 * over, its bytes copied) and held by the ArrowBatch; each capsule gets a
 * mirror of that array, nodes that share its buffers and hold a reference
 * to the ArrowBatch, dropped (with the GIL) when the consumer releases
 * them, so that a batch can be handed to several consumers, and a child
 * moved out of its parent keeps the buffers alive on its own. */
#include "ext.h"

#include <errno.h>
#include <stdio.h>

#include "featc/fc_arrow.h"

typedef struct {
    PyObject_HEAD
    const fcpy_message *m;
    unsigned flags; /* FC_ARROW_LARGE */
    struct ArrowArray arr;
} arrow_batch;

/* ------------------------------------------------------------ mirrors */

typedef struct mirror_priv {
    PyObject *owner;
    struct ArrowArray *kids;
    struct ArrowArray **kidp;
} mirror_priv;

static void mirror_release(struct ArrowArray *a)
{
    mirror_priv *pv = (mirror_priv *)a->private_data;
    PyGILState_STATE g;
    int64_t k;
    for (k = 0; k < a->n_children; k++)
        if (a->children[k]->release != NULL)
            a->children[k]->release(a->children[k]);
    free(pv->kids);
    free(pv->kidp);
    g = PyGILState_Ensure();
    Py_DECREF(pv->owner);
    PyGILState_Release(g);
    free(pv);
    a->release = NULL;
}

/* dst: a node over src's buffers, holding owner (the GIL is held). */
static int mirror(const struct ArrowArray *src, struct ArrowArray *dst, PyObject *owner)
{
    mirror_priv *pv = (mirror_priv *)calloc(1, sizeof *pv);
    int64_t k;
    *dst = *src;
    dst->release = NULL;
    if (pv == NULL)
        return -1;
    pv->kids = (struct ArrowArray *)calloc((size_t)src->n_children + 1, sizeof *pv->kids);
    pv->kidp = (struct ArrowArray **)calloc((size_t)src->n_children + 1, sizeof *pv->kidp);
    if (pv->kids == NULL || pv->kidp == NULL) {
        free(pv->kids);
        free(pv->kidp);
        free(pv);
        return -1;
    }
    pv->owner = Py_NewRef(owner);
    dst->children = src->n_children > 0 ? pv->kidp : NULL;
    dst->dictionary = NULL;
    dst->private_data = pv;
    dst->release = mirror_release;
    for (k = 0; k < src->n_children; k++) {
        pv->kidp[k] = &pv->kids[k];
        if (mirror(src->children[k], &pv->kids[k], owner) != 0) {
            dst->n_children = k; /* (the ones made so far) */
            mirror_release(dst);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ capsules */

static void schema_capsule_free(PyObject *cap)
{
    struct ArrowSchema *s = (struct ArrowSchema *)PyCapsule_GetPointer(cap, "arrow_schema");
    if (s == NULL) {
        PyErr_Clear();
        return;
    }
    if (s->release != NULL)
        s->release(s);
    free(s);
}

static void array_capsule_free(PyObject *cap)
{
    struct ArrowArray *a = (struct ArrowArray *)PyCapsule_GetPointer(cap, "arrow_array");
    if (a == NULL) {
        PyErr_Clear();
        return;
    }
    if (a->release != NULL)
        a->release(a);
    free(a);
}

static void stream_capsule_free(PyObject *cap)
{
    struct ArrowArrayStream *s =
        (struct ArrowArrayStream *)PyCapsule_GetPointer(cap, "arrow_array_stream");
    if (s == NULL) {
        PyErr_Clear();
        return;
    }
    if (s->release != NULL)
        s->release(s);
    free(s);
}

static PyObject *schema_capsule(const fcpy_message *m, unsigned flags)
{
    struct ArrowSchema *s = (struct ArrowSchema *)calloc(1, sizeof *s);
    fc_error err;
    PyObject *cap;
    if (s == NULL)
        return PyErr_NoMemory();
    fc_error_clear(&err);
    if (fc_arrow_schema(m->md, m->sd, flags, s, &err) != FC_OK) {
        free(s);
        PyErr_SetString(PyExc_ValueError, err.message);
        return NULL;
    }
    cap = PyCapsule_New(s, "arrow_schema", schema_capsule_free);
    if (cap == NULL) {
        s->release(s);
        free(s);
    }
    return cap;
}

/* requested_schema: featc gives its own schema (the protocol lets a
 * producer ignore the request; a consumer that needs another casts). */
static int requested(PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"requested_schema", NULL};
    PyObject *req = Py_None;
    return PyArg_ParseTupleAndKeywords(args, kw, "|O", kwlist, &req) ? 0 : -1;
}

/* ------------------------------------------------------------ ArrowBatch */

static PyObject *batch_schema(PyObject *self, PyObject *unused)
{
    (void)unused;
    return schema_capsule(((arrow_batch *)self)->m, ((arrow_batch *)self)->flags);
}

static PyObject *batch_array(PyObject *self, PyObject *args, PyObject *kw)
{
    arrow_batch *b = (arrow_batch *)self;
    struct ArrowArray *a;
    PyObject *sc, *ac;
    if (requested(args, kw) != 0)
        return NULL;
    a = (struct ArrowArray *)calloc(1, sizeof *a);
    if (a == NULL)
        return PyErr_NoMemory();
    if (mirror(&b->arr, a, self) != 0) {
        free(a);
        return PyErr_NoMemory();
    }
    ac = PyCapsule_New(a, "arrow_array", array_capsule_free);
    if (ac == NULL) {
        a->release(a);
        free(a);
        return NULL;
    }
    sc = schema_capsule(b->m, b->flags);
    if (sc == NULL) {
        Py_DECREF(ac);
        return NULL;
    }
    return Py_BuildValue("(NN)", sc, ac);
}

static PyObject *batch_rows(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromLongLong((long long)((arrow_batch *)self)->arr.length);
}

static void batch_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    arrow_batch *b = (arrow_batch *)self;
    if (b->arr.release != NULL)
        b->arr.release(&b->arr);
    PyObject_Free(self);
    Py_DECREF(tp);
}

static PyMethodDef batch_methods[] = {
    {"__arrow_c_schema__", batch_schema, METH_NOARGS,
     "The batch's schema as a PyCapsule (Arrow's PyCapsule interface)."},
    {"__arrow_c_array__", (PyCFunction)(void (*)(void))batch_array, METH_VARARGS | METH_KEYWORDS,
     "__arrow_c_array__(requested_schema=None)\n--\n\n"
     "The batch as (schema, array) PyCapsules: a struct array, a row per record."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef batch_getset[] = {
    {"num_rows", batch_rows, NULL, "Records in the batch.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static const fslot batch_slots[] = {
    {Py_tp_dealloc, FN(batch_dealloc), NULL},
    {Py_tp_methods, NULL, batch_methods},
    {Py_tp_getset, NULL, batch_getset},
    {Py_tp_doc, NULL,
     (void *)"A batch as Arrow arrays (read(format='arrow')): pyarrow.record_batch(b),\n"
             "polars.DataFrame(b), ... take it through the PyCapsule interface."},
    {0, NULL, NULL}};

PyObject *fcpy_arrow_batch_type_new(void)
{
    return fcpy_make_type("featc.ArrowBatch", sizeof(arrow_batch), Py_TPFLAGS_DEFAULT,
                          batch_slots);
}

PyObject *fcpy_arrow_batch(batch_work *w)
{
    arrow_batch *b = PyObject_New(arrow_batch, (PyTypeObject *)fcpy_g.arrow_batch_type);
    if (b == NULL) {
        w->arr.release(&w->arr);
        return NULL;
    }
    b->m = w->m;
    b->flags = w->arrow == 2 ? FC_ARROW_LARGE : 0u;
    b->arr = w->arr; /* moved */
    w->arr.release = NULL;
    return (PyObject *)b;
}

const struct ArrowArray *fcpy_arrow_batch_array(PyObject *b)
{
    if (!PyObject_TypeCheck(b, (PyTypeObject *)fcpy_g.arrow_batch_type))
        return NULL;
    return &((arrow_batch *)b)->arr;
}

/* ------------------------------------------------------------ streams */

typedef struct stream_priv {
    PyObject *reader;
    const fcpy_message *m;
    unsigned flags;
    char error[1024];
} stream_priv;

static int stream_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    stream_priv *p = (stream_priv *)s->private_data;
    fc_error err;
    fc_error_clear(&err);
    if (fc_arrow_schema(p->m->md, p->m->sd, p->flags, out, &err) != FC_OK) {
        snprintf(p->error, sizeof p->error, "%s", err.message);
        return EINVAL;
    }
    return 0;
}

static int stream_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    stream_priv *p = (stream_priv *)s->private_data;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *b = PyIter_Next(p->reader);
    int rc = 0;
    memset(out, 0, sizeof *out);
    if (b == NULL && PyErr_Occurred()) {
        PyObject *type, *value, *tb, *str;
        PyErr_Fetch(&type, &value, &tb);
        str = value != NULL ? PyObject_Str(value) : NULL;
        snprintf(p->error, sizeof p->error, "%s",
                 str != NULL ? PyUnicode_AsUTF8AndSize(str, NULL) : "an error in read()");
        PyErr_Clear();
        Py_XDECREF(str);
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        rc = EIO;
    } else if (b != NULL) {
        if (mirror(&((arrow_batch *)b)->arr, out, b) != 0) {
            snprintf(p->error, sizeof p->error, "out of memory");
            rc = ENOMEM;
        }
        Py_DECREF(b);
    }
    PyGILState_Release(g);
    return rc;
}

static const char *stream_error(struct ArrowArrayStream *s)
{
    stream_priv *p = (stream_priv *)s->private_data;
    return p->error[0] != '\0' ? p->error : NULL;
}

static void stream_release(struct ArrowArrayStream *s)
{
    stream_priv *p = (stream_priv *)s->private_data;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_DECREF(p->reader);
    PyGILState_Release(g);
    free(p);
    s->release = NULL;
}

PyObject *fcpy_arrow_stream(PyObject *reader, const fcpy_message *m, unsigned flags,
                            PyObject *args, PyObject *kw)
{
    struct ArrowArrayStream *s;
    stream_priv *p;
    PyObject *cap;
    if (requested(args, kw) != 0)
        return NULL;
    s = (struct ArrowArrayStream *)calloc(1, sizeof *s);
    p = (stream_priv *)calloc(1, sizeof *p);
    if (s == NULL || p == NULL) {
        free(s);
        free(p);
        return PyErr_NoMemory();
    }
    p->reader = Py_NewRef(reader);
    p->m = m;
    p->flags = flags;
    s->get_schema = stream_schema;
    s->get_next = stream_next;
    s->get_last_error = stream_error;
    s->release = stream_release;
    s->private_data = p;
    cap = PyCapsule_New(s, "arrow_array_stream", stream_capsule_free);
    if (cap == NULL) {
        s->release(s);
        free(s);
    }
    return cap;
}
