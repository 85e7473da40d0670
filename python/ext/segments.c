/* featc's Python layer: mod.segments(), the segment batcher of a
 * sequence_example's segments block (fc_segment.h: TensorFlow's
 * SequenceQueueingStateSaver) as a featc.Segmenter object.
 *
 * The batcher's storage is one block (fc_seg_init_block, malloc) sized for
 * the spec's configuration or the one the call asks for; every example is
 * inserted as its serialized record, which the batcher copies into its own
 * record store, so that bytes values live as long as the example.  Each
 * batch next() hands out is a copy (the batcher's output arrays are reused
 * by the next batch): NumPy arrays, featc Bytes, lists of bytes keys.
 * Everything runs under the GIL; a segmenter belongs to one thread. */
#include "ext.h"

#include <stdio.h>

/* Keys made from the examples' ordinals need 20 digits. */
#define ORDINAL_KEY_MAX 20
#define DEFAULT_RECORD_MAX ((size_t)1 << 20)

typedef struct {
    PyObject_HEAD
    const fcpy_message *m;
    fc_seg_config cfg;
    fc_segmenter s;
    void *mem;         /* the batcher's block */
    void *scratch;     /* one parsed example (a key feature), or NULL */
    void *initial;     /* one states struct (insert's initial=) */
    int key_field;     /* the context feature keys come from, or -1 */
    int ended;         /* next() met the end */
} seg_object;

/* A segmenter's error as Python's: DataError (featc's message, .status)
 * for what the data did, RuntimeError for a call out of order. */
static PyObject *seg_raise(const fc_error *err)
{
    if (err->status == FC_ERR_STATE || err->status == FC_ERR_CLOSED)
        PyErr_SetString(PyExc_RuntimeError, err->message);
    else
        fcpy_raise_error(err, NULL, FC_NO_INDEX, FC_NO_INDEX, 0);
    return NULL;
}

/* ------------------------------------------------------------ arrays */

/* A new array of shape[0..rank) holding a copy of n values of dtype dt. */
static PyObject *copy_array(const void *src, int dt, size_t n, const int64_t *shape,
                            unsigned rank)
{
    size_t bytes = n * fcpy_dt_size(dt);
    void *mem = fcpy_alloc16(bytes);
    PyObject *owner, *arr;
    if (mem == NULL)
        return PyErr_NoMemory();
    if (bytes > 0)
        memcpy(mem, src, bytes);
    owner = fcpy_block_new(mem, bytes, 0);
    if (owner == NULL)
        return NULL;
    arr = fcpy_view_array(owner, mem, dt, n, shape, rank);
    Py_DECREF(owner);
    return arr;
}

/* Counts (size_t) as an int64 array of shape[0..rank). */
static PyObject *sizes_array(const size_t *v, size_t n, const int64_t *shape, unsigned rank)
{
    int64_t *mem = (int64_t *)fcpy_alloc16(n * sizeof(int64_t));
    PyObject *owner, *arr;
    size_t k;
    if (mem == NULL)
        return PyErr_NoMemory();
    for (k = 0; k < n; k++)
        mem[k] = (int64_t)v[k];
    owner = fcpy_block_new(mem, n * sizeof(int64_t), 0);
    if (owner == NULL)
        return NULL;
    arr = fcpy_view_array(owner, mem, DT_INT64, n, shape, rank);
    Py_DECREF(owner);
    return arr;
}

/* n values of type t at src in shape[0..rank): an array, or featc Bytes. */
static PyObject *values_copy(fc_type t, const void *src, size_t n, const int64_t *shape,
                             unsigned rank)
{
    packed p;
    if (t != FC_TYPE_BYTES)
        return copy_array(src, fcpy_dtype_of(t), n, shape, rank);
    memset(&p, 0, sizeof p);
    if (fcpy_pack_bytes(&p, (const fc_bytes *)src, n, NULL, NULL) != 0)
        return PyErr_NoMemory();
    return fcpy_bytes_from_packed(&p, shape, rank);
}

/* d[key] = v (stolen); -1 when v is NULL or the store fails. */
static int put(PyObject *d, PyObject *key, PyObject *v)
{
    int rc;
    if (key == NULL || v == NULL) {
        Py_XDECREF(key);
        Py_XDECREF(v);
        return -1;
    }
    rc = PyDict_SetItem(d, key, v);
    Py_DECREF(key);
    Py_DECREF(v);
    return rc;
}

static int put_str(PyObject *d, const char *key, PyObject *v)
{
    return put(d, PyUnicode_FromString(key), v);
}

/* A column of the batch into d: its values under its key, and for a
 * VarLen one its counts under KEY/lengths.  lead: the batch's leading
 * dimensions ([B] for the context, [B, num_unroll] for a feature list).
 * With `as` (x->as) the values are the typed tensor: its dtype, each
 * value's dims (a decoded bytes value) after the value's place. */
static int put_column(PyObject *d, const char *key, size_t key_len, fc_type t, fc_kind kind,
                      unsigned rank, const size_t *dims, size_t max, const fc_field_extra *x,
                      const fc_seg_column *c, const int64_t *lead, unsigned nlead)
{
    const fc_field_as *as = x != NULL ? x->as : NULL;
    int64_t shape[FC_MAX_RANK + 3];
    size_t rows = 1, per = 1, k;
    unsigned r = nlead;
    PyObject *name, *base, *v;
    for (k = 0; k < nlead; k++) {
        shape[k] = lead[k];
        rows *= (size_t)lead[k];
    }
    if (kind == FC_KIND_VARLEN) {
        shape[r++] = (int64_t)max;
        per = max;
    } else {
        for (k = 0; k < rank; k++) {
            shape[r++] = (int64_t)dims[k];
            per *= dims[k];
        }
    }
    if (as != NULL) {
        for (k = 0; k < as->rank; k++)
            shape[r++] = (int64_t)as->dims[k];
        v = copy_array(c->values, fcpy_dtype_of_as(as->type), rows * per * as->elems, shape, r);
    } else {
        v = values_copy(t, c->values, rows * per, shape, r);
    }
    if (put(d, fcpy_key_str(key, key_len), v) != 0)
        return -1;
    if (kind != FC_KIND_VARLEN)
        return 0;
    base = fcpy_key_str(key, key_len);
    if (base == NULL)
        return -1;
    name = PyUnicode_FromFormat("%U/lengths", base);
    Py_DECREF(base);
    return put(d, name, sizes_array(c->counts, rows, lead, nlead));
}

/* The batch fc_seg_next handed out, copied into a dict. */
static PyObject *batch_dict(seg_object *o)
{
    const fc_seg_out *out = &o->s.out;
    const fc_seq_desc *sd = o->cfg.seq;
    size_t b = out->size, i;
    int64_t lead[2];
    PyObject *d = PyDict_New(), *keys, *next, *ctx, *seqs, *states;
    if (d == NULL)
        return NULL;
    lead[0] = (int64_t)b;
    lead[1] = (int64_t)o->cfg.num_unroll;
    keys = PyList_New((Py_ssize_t)b);
    next = PyList_New((Py_ssize_t)b);
    for (i = 0; keys != NULL && next != NULL && i < b; i++) {
        PyList_SetItem(keys, (Py_ssize_t)i,
                       PyBytes_FromStringAndSize((const char *)out->key[i].data,
                                                 (Py_ssize_t)out->key[i].size));
        PyList_SetItem(next, (Py_ssize_t)i,
                       PyBytes_FromStringAndSize((const char *)out->next_key[i].data,
                                                 (Py_ssize_t)out->next_key[i].size));
    }
    if (put_str(d, "key", keys) != 0 || put_str(d, "next_key", next) != 0 ||
        put_str(d, "sequence", sizes_array(out->sequence, b, lead, 1)) != 0 ||
        put_str(d, "sequence_count", sizes_array(out->sequence_count, b, lead, 1)) != 0 ||
        put_str(d, "length", sizes_array(out->length, b, lead, 1)) != 0 ||
        put_str(d, "total_length", sizes_array(out->total_length, b, lead, 1)) != 0 ||
        put_str(d, "insertion_index",
                copy_array(out->insertion_index, DT_INT64, b, lead, 1)) != 0)
        goto fail;
    ctx = PyDict_New();
    if (put_str(d, "context", ctx) != 0)
        goto fail;
    for (i = 0; i < sd->ncontext; i++) {
        const fc_field_desc *f = &sd->context[i];
        if (put_column(ctx, f->key, f->key_len, f->type, f->kind, f->rank, f->dims, f->max,
                       f->extra, &out->context[i], lead, 1) != 0)
            goto fail;
    }
    seqs = PyDict_New();
    if (put_str(d, "sequences", seqs) != 0)
        goto fail;
    for (i = 0; i < sd->nlists; i++) {
        const fc_list_desc *l = &sd->lists[i];
        if (put_column(seqs, l->key, l->key_len, l->type, l->kind, l->rank, l->dims, l->max,
                       l->extra, &out->lists[i], lead, 2) != 0)
            goto fail;
    }
    states = PyDict_New();
    if (put_str(d, "states", states) != 0)
        goto fail;
    for (i = 0; i < o->cfg.nstates; i++) {
        const fc_state_desc *st = &o->cfg.states[i];
        int64_t shape[FC_MAX_RANK + 1];
        unsigned k;
        shape[0] = (int64_t)b;
        for (k = 0; k < st->rank; k++)
            shape[k + 1] = (int64_t)st->dims[k];
        if (put_str(states, st->name, copy_array(out->states[i], fcpy_dtype_of(st->type),
                                                 b * st->elems, shape, st->rank + 1)) != 0)
            goto fail;
    }
    return d;
fail:
    Py_DECREF(d);
    return NULL;
}

/* ------------------------------------------------------------ states */

/* State i's values from v (anything numpy.ascontiguousarray takes) into
 * dst: rows entries of the state's shape ([rows, *shape]), or with rows
 * SIZE_MAX one entry ([*shape]).  0, or -1 with an exception naming it. */
static int state_values(const fc_state_desc *st, PyObject *v, size_t rows, void *dst)
{
    PyObject *args, *kw, *arr;
    Py_buffer view;
    size_t want_n = rows == SIZE_MAX ? st->elems : rows * st->elems;
    unsigned want_rank = rows == SIZE_MAX ? st->rank : st->rank + 1, k;
    int ok;
    args = PyTuple_Pack(1, v);
    kw = Py_BuildValue("{sO}", "dtype", fcpy_g.dtype[fcpy_dtype_of(st->type)]);
    arr = args != NULL && kw != NULL ? PyObject_Call(fcpy_g.ascontiguous, args, kw) : NULL;
    Py_XDECREF(args);
    Py_XDECREF(kw);
    if (arr == NULL)
        return -1;
    if (PyObject_GetBuffer(arr, &view, PyBUF_C_CONTIGUOUS) != 0) {
        Py_DECREF(arr);
        return -1;
    }
    ok = (unsigned)view.ndim == want_rank;
    for (k = 0; ok && k < want_rank; k++) {
        size_t want = rows == SIZE_MAX ? st->dims[k] : k == 0 ? rows : st->dims[k - 1];
        ok = (size_t)view.shape[k] == want;
    }
    if (ok && (size_t)view.len == want_n * fc_type_size(st->type)) {
        if (view.len > 0)
            memcpy(dst, view.buf, (size_t)view.len);
    } else {
        PyObject *shape = PyObject_GetAttrString(arr, "shape");
        PyObject *dims = PyTuple_New((Py_ssize_t)want_rank);
        for (k = 0; dims != NULL && k < want_rank; k++) {
            size_t want = rows == SIZE_MAX ? st->dims[k] : k == 0 ? rows : st->dims[k - 1];
            PyTuple_SetItem(dims, (Py_ssize_t)k, PyLong_FromSize_t(want));
        }
        if (shape != NULL && dims != NULL)
            PyErr_Format(PyExc_ValueError, "state '%s' takes shape %R, not %R", st->name, dims,
                         shape);
        Py_XDECREF(shape);
        Py_XDECREF(dims);
        ok = 0;
    }
    PyBuffer_Release(&view);
    Py_DECREF(arr);
    return ok ? 0 : -1;
}

/* The state named by name (a str): its index, or -1 with a KeyError. */
static int state_index(seg_object *o, PyObject *name)
{
    const char *s;
    int i;
    if (!PyUnicode_Check(name)) {
        PyErr_Format(PyExc_TypeError, "a state's name is a str, not %S",
                     (PyObject *)Py_TYPE(name));
        return -1;
    }
    s = PyUnicode_AsUTF8AndSize(name, NULL);
    if (s == NULL)
        return -1;
    i = fc_seg_find_state(&o->s, s);
    if (i < 0)
        PyErr_Format(PyExc_KeyError, "state %R was not declared (the segments block of '%s')",
                     name, o->m->name);
    return i;
}

/* insert's initial=: a dict of states (the rest zero) into o->initial. */
static int initial_states(seg_object *o, PyObject *initial)
{
    PyObject *name, *v;
    Py_ssize_t pos = 0;
    memset(o->initial, 0, o->cfg.states_size);
    if (!PyDict_Check(initial)) {
        PyErr_SetString(PyExc_TypeError, "initial must be a dict: state name -> values");
        return -1;
    }
    while (PyDict_Next(initial, &pos, &name, &v)) {
        int i = state_index(o, name);
        const fc_state_desc *st;
        if (i < 0)
            return -1;
        st = &o->cfg.states[i];
        if (state_values(st, v, SIZE_MAX, (char *)o->initial + st->offset) != 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ methods */

/* The key of an example: key= as given, else the key feature's value,
 * else the number of examples accepted so far.  Into buf (text keys), or
 * *ptr and *len pointing at the caller's bytes (view, released by the caller). */
static int example_key(seg_object *o, PyObject *key, const Py_buffer *rec, char *buf,
                       size_t bufsize, const char **ptr, size_t *len, Py_buffer *view)
{
    if (key != Py_None) {
        if (PyUnicode_Check(key)) {
            Py_ssize_t n;
            *ptr = PyUnicode_AsUTF8AndSize(key, &n);
            *len = (size_t)n;
            return *ptr != NULL ? 0 : -1;
        }
        if (PyObject_GetBuffer(key, view, PyBUF_SIMPLE) != 0)
            return -1;
        *ptr = (const char *)view->buf;
        *len = (size_t)view->len;
        return 0;
    }
    if (o->key_field >= 0) {
        const fc_field_desc *f = &o->cfg.seq->context[o->key_field];
        const char *at;
        fc_error err;
        fc_error_clear(&err);
        if (o->cfg.seq->parse(o->scratch, rec->buf, (size_t)rec->len, &err) != FC_OK) {
            seg_raise(&err);
            return -1;
        }
        at = (const char *)o->scratch + f->value_offset;
        if (f->type == FC_TYPE_BYTES) {
            const fc_bytes *v = (const fc_bytes *)(const void *)at;
            *ptr = (const char *)v->data;
            *len = v->size;
            return 0;
        }
        {
            int64_t x;
            memcpy(&x, at, sizeof x);
            *len = (size_t)snprintf(buf, bufsize, "%lld", (long long)x);
        }
        *ptr = buf;
        return 0;
    }
    *len = (size_t)snprintf(buf, bufsize, "%llu", (unsigned long long)o->s.inserted);
    *ptr = buf;
    return 0;
}

static PyObject *seg_insert(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"record", "key", "length", "initial", NULL};
    seg_object *o = (seg_object *)self;
    PyObject *record, *key = Py_None, *length = Py_None, *initial = Py_None;
    Py_buffer rec, kview;
    char buf[32];
    const char *kp = NULL;
    size_t klen = 0, len = FC_SEG_LENGTH_FRAMES;
    fc_error err;
    int rc;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$OO", kwlist, &record, &key, &length,
                                     &initial))
        return NULL;
    if (length != Py_None && fcpy_size_option(length, "length", 1, PY_SSIZE_T_MAX, &len) != 0)
        return NULL;
    if (initial != Py_None && initial_states(o, initial) != 0)
        return NULL;
    if (PyObject_GetBuffer(record, &rec, PyBUF_SIMPLE) != 0)
        return NULL;
    kview.obj = NULL;
    if (example_key(o, key, &rec, buf, sizeof buf, &kp, &klen, &kview) != 0) {
        PyBuffer_Release(&rec);
        return NULL;
    }
    fc_error_clear(&err);
    rc = fc_seg_insert_record(&o->s, kp, klen, rec.buf, (size_t)rec.len, len,
                              initial != Py_None ? o->initial : NULL, &err);
    if (kview.obj != NULL)
        PyBuffer_Release(&kview);
    PyBuffer_Release(&rec);
    if (rc == FC_OK)
        Py_RETURN_TRUE;
    if (rc == FC_AGAIN)
        Py_RETURN_FALSE;
    return seg_raise(&err);
}

static PyObject *seg_next(PyObject *self, PyObject *unused)
{
    seg_object *o = (seg_object *)self;
    fc_error err;
    int rc;
    (void)unused;
    fc_error_clear(&err);
    rc = fc_seg_next(&o->s, &err);
    if (rc == FC_OK)
        return batch_dict(o);
    if (rc == FC_END)
        o->ended = 1;
    if (rc == FC_AGAIN || rc == FC_END)
        Py_RETURN_NONE;
    return seg_raise(&err);
}

static PyObject *seg_save_state(PyObject *self, PyObject *args)
{
    seg_object *o = (seg_object *)self;
    PyObject *name, *values;
    const fc_state_desc *st;
    void *tmp;
    fc_error err;
    int i, rc;
    if (!PyArg_ParseTuple(args, "OO", &name, &values) || (i = state_index(o, name)) < 0)
        return NULL;
    if (!o->s.outstanding || (o->s.saved >> i & 1u)) {
        PyErr_Format(PyExc_RuntimeError, "save_state(%R): %s", name,
                     o->s.outstanding ? "saved already for this batch"
                                      : "no batch is out (next() hands one out)");
        return NULL;
    }
    st = &o->cfg.states[i];
    tmp = malloc(o->s.out.size * st->elems * fc_type_size(st->type) + 1);
    if (tmp == NULL)
        return PyErr_NoMemory();
    if (state_values(st, values, o->s.out.size, tmp) != 0) {
        free(tmp);
        return NULL;
    }
    fc_error_clear(&err);
    rc = fc_seg_save_state(&o->s, (size_t)i, tmp, &err);
    free(tmp);
    if (rc != FC_OK)
        return seg_raise(&err);
    Py_RETURN_NONE;
}

static PyObject *seg_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    fc_seg_close(&((seg_object *)self)->s);
    Py_RETURN_NONE;
}

static void seg_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    seg_object *o = (seg_object *)self;
    free(o->mem);
    free(o->scratch);
    free(o->initial);
    PyObject_Free(self);
    Py_DECREF(tp);
}

static PyObject *get_size(PyObject *self, void *closure)
{
    seg_object *o = (seg_object *)self;
    const char *what = (const char *)closure;
    if (strcmp(what, "num_unroll") == 0)
        return PyLong_FromSize_t(o->cfg.num_unroll);
    if (strcmp(what, "batch_size") == 0)
        return PyLong_FromSize_t(o->cfg.batch_size);
    if (strcmp(what, "capacity") == 0)
        return PyLong_FromSize_t(o->cfg.capacity);
    if (strcmp(what, "in_flight") == 0)
        return PyLong_FromSize_t(fc_seg_in_flight(&o->s));
    if (strcmp(what, "inserted") == 0)
        return PyLong_FromUnsignedLongLong(o->s.inserted);
    if (strcmp(what, "finished") == 0)
        return PyLong_FromUnsignedLongLong(o->s.finished);
    if (strcmp(what, "batches") == 0)
        return PyLong_FromUnsignedLongLong(o->s.batches);
    if (strcmp(what, "closed") == 0)
        return PyBool_FromLong(o->s.closed);
    if (strcmp(what, "done") == 0)
        return PyBool_FromLong(o->ended || (o->s.closed && fc_seg_in_flight(&o->s) == 0));
    if (strcmp(what, "waiting") == 0) /* a batch is out with states not saved */
        return PyBool_FromLong(o->s.outstanding);
    return PyUnicode_FromString(o->m->name); /* message */
}

static PyObject *get_states(PyObject *self, void *closure)
{
    seg_object *o = (seg_object *)self;
    PyObject *d = PyDict_New();
    size_t i;
    (void)closure;
    for (i = 0; d != NULL && i < o->cfg.nstates; i++) {
        const fc_state_desc *st = &o->cfg.states[i];
        int64_t dims[FC_MAX_RANK];
        unsigned k;
        for (k = 0; k < st->rank; k++)
            dims[k] = (int64_t)st->dims[k];
        if (put_str(d, st->name,
                    Py_BuildValue("(ON)", fcpy_g.dtype[fcpy_dtype_of(st->type)],
                                  fcpy_shape_tuple(dims, st->rank))) != 0)
            Py_CLEAR(d);
    }
    return d;
}

static PyMethodDef seg_methods[] = {
    {"insert", (PyCFunction)(void (*)(void))seg_insert, METH_VARARGS | METH_KEYWORDS,
     "insert(record, key=None, *, length=None, initial=None)\n--\n\n"
     "Inserts one serialized SequenceExample (bytes-like; the segmenter keeps a\n"
     "copy) under key (str or bytes; None: the key feature's value, else the number\n"
     "of examples accepted before it).  length: steps before padding (default: the\n"
     "frames); initial: {state: values} for its first segment (the rest zero).\n"
     "Returns True, or False when capacity examples are in flight (nothing\n"
     "changed: take a batch and save its states first).  An example TensorFlow\n"
     "rejects raises DataError."},
    {"next", seg_next, METH_NOARGS,
     "next()\n--\n\n"
     "The next batch of segments, a dict (key, next_key, sequence, sequence_count,\n"
     "length, total_length, insertion_index, context, sequences, states), or None:\n"
     "too few examples in flight for a batch (insert more, or close()), or, with\n"
     "done set, the end.  Every state must be saved (save_state) before the next."},
    {"save_state", seg_save_state, METH_VARARGS,
     "save_state(name, values)\n--\n\n"
     "Saves state name for the batch that is out: values [size, *shape], in the\n"
     "batch's order; the segments that follow start from them."},
    {"close", seg_close, METH_NOARGS,
     "close()\n--\n\nNo more examples: what is in flight is still handed out."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef seg_getset[] = {
    {"num_unroll", get_size, NULL, "Steps per segment.", (void *)"num_unroll"},
    {"batch_size", get_size, NULL, "Segments per batch.", (void *)"batch_size"},
    {"capacity", get_size, NULL, "Examples in flight at most.", (void *)"capacity"},
    {"in_flight", get_size, NULL, "Examples in flight.", (void *)"in_flight"},
    {"inserted", get_size, NULL, "Examples accepted.", (void *)"inserted"},
    {"finished", get_size, NULL, "Examples whose last segment is done.", (void *)"finished"},
    {"batches", get_size, NULL, "Batches handed out.", (void *)"batches"},
    {"closed", get_size, NULL, "close() was called.", (void *)"closed"},
    {"done", get_size, NULL, "Closed, and every segment handed out.", (void *)"done"},
    {"waiting", get_size, NULL, "A batch is out whose states are not all saved.",
     (void *)"waiting"},
    {"message", get_size, NULL, "The sequence_example's name.", (void *)"message"},
    {"states", get_states, NULL, "The states: name -> (dtype, shape).", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static const fslot seg_slots[] = {
    {Py_tp_dealloc, FN(seg_dealloc), NULL},
    {Py_tp_methods, NULL, seg_methods},
    {Py_tp_getset, NULL, seg_getset},
    {Py_tp_doc, NULL,
     (void *)"The segment batcher of a segments block (mod.segments()): TensorFlow's\n"
             "SequenceQueueingStateSaver."},
    {0, NULL, NULL}};

PyObject *fcpy_segmenter_type_new(void)
{
    return fcpy_make_type("featc.Segmenter", sizeof(seg_object), Py_TPFLAGS_DEFAULT, seg_slots);
}

/* ------------------------------------------------------------ mod.segments() */

/* The message with a segments block: message= (which must have one), or
 * the spec's first that has one. */
static const fcpy_message *segments_message(PyObject *message)
{
    const fcpy_message *m;
    size_t i;
    if (message != Py_None) {
        if ((m = fcpy_find_message(message)) == NULL)
            return NULL;
        if (m->seg == NULL) {
            PyErr_Format(PyExc_ValueError, "message '%s' of %s has no segments block", m->name,
                         fcpy_g.spec->spec);
            return NULL;
        }
        return m;
    }
    for (i = 0; i < fcpy_g.spec->nmessages; i++)
        if (fcpy_g.spec->messages[i].seg != NULL)
            return &fcpy_g.spec->messages[i];
    PyErr_Format(PyExc_ValueError,
                 "%s declares no segments block (a sequence_example's segments { ... })",
                 fcpy_g.spec->spec);
    return NULL;
}

/* key=: a context feature of one bytes or int64 value. */
static int key_feature(seg_object *o, PyObject *key)
{
    const fc_seq_desc *sd = o->cfg.seq;
    const char *s;
    Py_ssize_t n;
    size_t i;
    if (!PyUnicode_Check(key)) {
        PyErr_SetString(PyExc_TypeError, "key must be a str (a context feature's key)");
        return -1;
    }
    if ((s = PyUnicode_AsUTF8AndSize(key, &n)) == NULL)
        return -1;
    for (i = 0; i < sd->ncontext; i++) {
        const fc_field_desc *f = &sd->context[i];
        if (f->key_len != (size_t)n || memcmp(f->key, s, (size_t)n) != 0)
            continue;
        if (f->kind != FC_KIND_FIXED || f->elems != 1 || f->type == FC_TYPE_FLOAT) {
            PyErr_Format(PyExc_ValueError, "key %R: keys come from a context feature of one "
                         "bytes or int64 value", key);
            return -1;
        }
        o->key_field = (int)i;
        o->scratch = fcpy_alloc16(sd->size);
        if (o->scratch == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        return 0;
    }
    PyErr_Format(PyExc_ValueError, "key %R is not a context feature of '%s'", key, sd->name);
    return -1;
}

PyObject *fcpy_segments(PyObject *module, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"message", "num_unroll", "batch_size", "capacity",
                             "allow_small_batch", "key", "max_record_size", NULL};
    PyObject *message = Py_None, *unroll = Py_None, *batch = Py_None, *cap = Py_None;
    PyObject *small = Py_None, *key = Py_None, *maxrec = Py_None;
    const fcpy_message *m;
    seg_object *o;
    size_t need;
    fc_error err;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$OOOOOOO", kwlist, &message, &unroll, &batch,
                                     &cap, &small, &key, &maxrec) ||
        (m = segments_message(message)) == NULL)
        return NULL;
    o = PyObject_New(seg_object, (PyTypeObject *)fcpy_g.segmenter_type);
    if (o == NULL)
        return NULL;
    memset((char *)o + sizeof(PyObject), 0, sizeof *o - sizeof(PyObject));
    o->m = m;
    o->key_field = -1;
    o->cfg = *m->seg;
    if (o->cfg.key_max < ORDINAL_KEY_MAX)
        o->cfg.key_max = ORDINAL_KEY_MAX;
    if (o->cfg.record_max == 0)
        o->cfg.record_max = DEFAULT_RECORD_MAX;
    if ((unroll != Py_None &&
         fcpy_size_option(unroll, "num_unroll", 1, MAX_BATCH, &o->cfg.num_unroll) != 0) ||
        (batch != Py_None &&
         fcpy_size_option(batch, "batch_size", 1, MAX_BATCH, &o->cfg.batch_size) != 0) ||
        (cap != Py_None && fcpy_size_option(cap, "capacity", 1, MAX_BATCH, &o->cfg.capacity) != 0) ||
        (maxrec != Py_None && fcpy_size_option(maxrec, "max_record_size", 1, PY_SSIZE_T_MAX,
                                               &o->cfg.record_max) != 0) ||
        (key != Py_None && key_feature(o, key) != 0)) {
        Py_DECREF(o);
        return NULL;
    }
    if (small != Py_None) {
        int v = PyObject_IsTrue(small);
        if (v < 0) {
            Py_DECREF(o);
            return NULL;
        }
        o->cfg.allow_small_batch = v;
    }
    if (cap == Py_None && o->cfg.capacity < o->cfg.batch_size)
        o->cfg.capacity = o->cfg.batch_size; /* a larger batch_size= alone */
    fc_error_clear(&err);
    need = fc_seg_init_block(&o->s, &o->cfg, NULL, 0, &err);
    if (need == 0) {
        PyErr_SetString(PyExc_ValueError, err.message);
        Py_DECREF(o);
        return NULL;
    }
    o->mem = malloc(need);
    o->initial = calloc(1, o->cfg.states_size);
    if (o->mem == NULL || o->initial == NULL) {
        PyErr_Format(PyExc_MemoryError, "the segment batcher needs %zu bytes", need);
        Py_DECREF(o);
        return NULL;
    }
    fc_error_clear(&err);
    if (fc_seg_init_block(&o->s, &o->cfg, o->mem, need, &err) != need || err.status != FC_OK) {
        PyErr_SetString(PyExc_ValueError, err.message);
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}
