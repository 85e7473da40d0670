/* write() of records one by one: a dict per Example (for a SequenceExample
 * a (context, feature_lists) pair), its values as parse() gives them or
 * as Python scalars, lists, bytes and NumPy arrays.  Each record becomes
 * a batch of one, in the layouts write() takes from read(), so that both
 * go through the same checks and the same serializer.
 *
 * Whether an item is a record or a batch is read from its values' ranks
 * against the spec: a FixedLen feature of shape [2, 3] is [2, 3] in a
 * record and [B, 2, 3] in a batch; a VarLen feature is a list in a record
 * and Sparse, Ragged or [B, N] in a batch; a Ragged value has one row
 * splits fewer in a record.  An item whose features disagree is refused,
 * naming two of them.  Allocates (Python objects): a hosted layer. */
#include "ext.h"

int fcpy_is_ragged(PyObject *v)
{
    return PyObject_TypeCheck(v, (PyTypeObject *)fcpy_g.ragged_type) ||
           (PyTuple_Check(v) && PyTuple_Size(v) == 2 && PyObject_HasAttrString(v, "row_splits"));
}

int fcpy_is_sparse(PyObject *v)
{
    return PyObject_TypeCheck(v, (PyTypeObject *)fcpy_g.sparse_type) ||
           (PyTuple_Check(v) && PyTuple_Size(v) == 3 && PyObject_HasAttrString(v, "dense_shape"));
}

static int is_featc_bytes(PyObject *v)
{
    return PyObject_TypeCheck(v, (PyTypeObject *)fcpy_g.bytes_type) ||
           (PyObject_HasAttrString(v, "offsets") && PyObject_HasAttrString(v, "to_numpy"));
}

/* How many row splits a Ragged value has (a tuple of them, or one). */
static Py_ssize_t nsplits(PyObject *rg)
{
    PyObject *rs = PyTuple_GetItem(rg, 1);
    return rs == NULL ? 0 : PyTuple_Check(rs) ? PyTuple_Size(rs) : 1;
}

/* v as a NumPy array: numbers as they are (an empty list as the feature's
 * dtype: NumPy makes it float64), bytes as an object array (a featc Bytes
 * through its to_numpy()). */
static PyObject *as_array(PyObject *v, fc_type t)
{
    if (t != FC_TYPE_BYTES) {
        PyObject *a = PyObject_CallFunctionObjArgs(fcpy_g.asarray, v, NULL), *size, *typed;
        Py_ssize_t n;
        if (a == NULL || (size = PyObject_GetAttrString(a, "size")) == NULL)
            return a;
        n = PyLong_AsSsize_t(size);
        Py_DECREF(size);
        if (n != 0)
            return a;
        typed = PyObject_CallMethod(a, "astype", "O", fcpy_g.dtype[fcpy_dtype_of(t)]);
        Py_DECREF(a);
        return typed;
    }
    if (is_featc_bytes(v))
        return PyObject_CallMethod(v, "to_numpy", NULL);
    return PyObject_CallFunction(fcpy_g.asarray, "Os", v, "O");
}

/* A Ragged's values: featc Bytes as they are, the rest as arrays. */
static PyObject *typed_values(PyObject *v, fc_type t)
{
    if (t == FC_TYPE_BYTES && PyObject_TypeCheck(v, (PyTypeObject *)fcpy_g.bytes_type))
        return Py_NewRef(v);
    return as_array(v, t);
}

/* The rank of v as an array; -1 with an exception. */
static Py_ssize_t rank_of(PyObject *v, fc_type t)
{
    PyObject *a = as_array(v, t), *nd;
    Py_ssize_t r;
    if (a == NULL)
        return -1;
    nd = PyObject_GetAttrString(a, "ndim");
    Py_DECREF(a);
    if (nd == NULL)
        return -1;
    r = PyLong_AsSsize_t(nd);
    Py_DECREF(nd);
    return r;
}

/* The second dimension of a Sparse's indices, 0 when it has none. */
static Py_ssize_t width_of(PyObject *indices)
{
    PyObject *a = PyObject_CallFunctionObjArgs(fcpy_g.asarray, indices, NULL), *shape;
    Py_ssize_t w = 0;
    if (a == NULL || (shape = PyObject_GetAttrString(a, "shape")) == NULL) {
        Py_XDECREF(a);
        return -1;
    }
    if (PyTuple_Size(shape) == 2)
        w = PyLong_AsSsize_t(PyTuple_GetItem(shape, 1));
    Py_DECREF(shape);
    Py_DECREF(a);
    return w;
}

enum { FORM_EITHER, FORM_RECORD, FORM_BATCH };

/* The form value v of a feature has: a dense one's rank is rank in a
 * record; VarLen values are a list; a Ragged one has splits splits.  -1
 * with an exception. */
static int form_of(PyObject *v, fc_kind kind, fc_type t, Py_ssize_t rank, Py_ssize_t splits)
{
    Py_ssize_t r;
    if (kind == FC_KIND_SPARSE && fcpy_is_sparse(v)) {
        /* indices [N, rank] in a record, [N, rank + 1] in a batch */
        Py_ssize_t w = width_of(PyTuple_GetItem(v, 0));
        return w < 0 ? -1 : w == rank ? FORM_RECORD : w == rank + 1 ? FORM_BATCH : FORM_EITHER;
    }
    if (fcpy_is_sparse(v))
        return FORM_BATCH;
    if (splits > 0 && kind != FC_KIND_RAGGED && (PyList_Check(v) || PyTuple_Check(v)))
        return FORM_RECORD; /* a feature list's frames, each a list of values */
    if (fcpy_is_ragged(v)) {
        r = nsplits(v);
        return r == splits ? FORM_RECORD : r == splits + 1 ? FORM_BATCH : FORM_EITHER;
    }
    if ((r = rank_of(v, t)) < 0)
        return -1;
    if (kind == FC_KIND_FIXED || kind == FC_KIND_ROWS)
        return r == rank ? FORM_RECORD : r == rank + 1 ? FORM_BATCH : FORM_EITHER;
    /* VarLen, or a RaggedFeature without partitions: its values */
    return splits == 0 && r <= 1 ? FORM_RECORD : splits == 0 && r == 2 ? FORM_BATCH : FORM_EITHER;
}

/* What one feature of an item says: *form set (or left when the feature
 * says nothing), *key the feature that set it; -1 when it contradicts. */
static int agree(PyObject *dict, const char *key, size_t key_len, fc_kind kind, fc_type t,
                 Py_ssize_t rank, Py_ssize_t splits, int *form, const char **who)
{
    PyObject *name = fcpy_key_str(key, key_len), *v;
    int f;
    if (name == NULL)
        return -1;
    v = PyDict_GetItemWithError(dict, name);
    Py_DECREF(name);
    if (v == NULL)
        return PyErr_Occurred() ? -1 : 0;
    if ((f = form_of(v, kind, t, rank, splits)) < 0)
        return -1;
    if (f == FORM_EITHER)
        return 0;
    if (*form != FORM_EITHER && *form != f) {
        PyErr_Format(PyExc_ValueError,
                     "%s is given as %s, %s as %s: an item is a record or a batch, not both",
                     *who, *form == FORM_RECORD ? "one record's value" : "a batch's column", key,
                     f == FORM_RECORD ? "one record's value" : "a batch's column");
        return -1;
    }
    *form = f;
    *who = key;
    return 0;
}

/* The (context, feature_lists[, lengths]) of a SequenceExample item, or
 * the dict of an Example item; -1 with an exception. */
static int parts_of(const fcpy_message *m, PyObject *item, PyObject **ctx, PyObject **lists)
{
    *ctx = item;
    *lists = NULL;
    if (m->sd != NULL) {
        if (!PyTuple_Check(item) || PyTuple_Size(item) < 2 || PyTuple_Size(item) > 3) {
            PyErr_SetString(PyExc_TypeError, "a sequence_example record is (context, "
                            "feature_lists), a batch (context, feature_lists[, lengths])");
            return -1;
        }
        *ctx = PyTuple_GetItem(item, 0);
        *lists = PyTuple_GetItem(item, 1);
    }
    if (!PyDict_Check(*ctx) || (*lists != NULL && !PyDict_Check(*lists))) {
        PyErr_SetString(PyExc_TypeError, "a record or a batch is a dict of features (key -> "
                        "value), as parse() or read() gives");
        return -1;
    }
    return 0;
}

/* The suffixes read() puts beside a hashed feature's key (its bucket ids,
 * and its hot vectors: hot is FC_HOT_ONE or FC_HOT_MULTI), which write()
 * skips: they come from the values. */
static const char *const derived[] = {"/buckets", "/one_hot", "/multi_hot"};

/* The keys of fields (or lists) that write() reads from a dict: the
 * features' keys and their derived columns (lengths: the fixed-frame
 * lists' keys only), but no hidden field's (a key only a SparseFeature or
 * RaggedFeature reads: write() takes that feature).  Calls f on each key
 * with its suffix (NULL: none) until it returns nonzero, and returns that. */
typedef int (*key_fn)(void *ctx, const char *key, size_t key_len, const char *suffix);

static int each_key(const fc_field_desc *fields, size_t nf, const fc_list_desc *lists, size_t nl,
                    int lengths, key_fn f, void *ctx)
{
    size_t i, q;
    int rc;
    for (i = 0; i < nf + nl; i++) {
        const fc_field_extra *x = i < nf ? fields[i].extra : lists[i - nf].extra;
        const char *key = i < nf ? fields[i].key : lists[i - nf].key;
        size_t key_len = i < nf ? fields[i].key_len : lists[i - nf].key_len;
        if ((x != NULL && x->hidden) || (lengths && lists[i - nf].kind != FC_KIND_FIXED))
            continue;
        if ((rc = f(ctx, key, key_len, NULL)) != 0)
            return rc;
        for (q = 0; !lengths && x != NULL && x->hash_buckets > 0 && q < 3; q++)
            if ((q == 0 || (int)q == x->hot) && (rc = f(ctx, key, key_len, derived[q])) != 0)
                return rc;
    }
    return 0;
}

/* each_key's calls: the dict's keys among them counted (a dict lookup
 * each), the names listed, or key k compared with each. */
typedef struct key_walk {
    PyObject *dict, *names, *k;
    Py_ssize_t found;
} key_walk;

static int count_key(void *ctx, const char *key, size_t key_len, const char *suffix)
{
    key_walk *w = (key_walk *)ctx;
    PyObject *k = fcpy_column_key(key, key_len, suffix), *v;
    if (k == NULL)
        return -1;
    v = PyDict_GetItemWithError(w->dict, k);
    Py_DECREF(k);
    if (v == NULL && PyErr_Occurred())
        return -1;
    w->found += v != NULL;
    return 0;
}

static int list_key(void *ctx, const char *key, size_t key_len, const char *suffix)
{
    key_walk *w = (key_walk *)ctx;
    PyObject *k;
    if (suffix != NULL)
        return 0; /* the features only */
    k = fcpy_column_key(key, key_len, NULL);
    if (k == NULL || PyList_Append(w->names, k) != 0) {
        Py_XDECREF(k);
        return -1;
    }
    Py_DECREF(k);
    return 0;
}

static int same_key(void *ctx, const char *key, size_t key_len, const char *suffix)
{
    key_walk *w = (key_walk *)ctx;
    PyObject *k = fcpy_column_key(key, key_len, suffix);
    int eq;
    if (k == NULL)
        return -1;
    eq = PyObject_RichCompareBool(w->k, k, Py_EQ);
    Py_DECREF(k);
    return eq; /* 1 equal, -1 an error */
}

/* Each key of dict (the features, or lists when `lists`; the fixed-frame
 * lists' lengths when `lengths`) is one write() reads: else a ValueError
 * that names the first other key and the message's keys, not a record
 * written without its value.  A dict lookup per key write() reads, and the
 * dict's keys walked only when their number differs. */
static int check_dict_keys(const fcpy_message *m, PyObject *dict, int lists, int lengths)
{
    const fc_field_desc *fields = m->md != NULL ? m->md->fields : m->sd->context;
    size_t nf = lists ? 0 : m->md != NULL ? m->md->nfields : m->sd->ncontext;
    size_t nl = lists ? m->sd->nlists : 0;
    const fc_list_desc *ls = lists ? m->sd->lists : NULL;
    key_walk w;
    Py_ssize_t pos = 0;
    PyObject *v, *sep, *joined;
    int rc = 1;
    w.dict = dict;
    w.names = NULL;
    w.found = 0;
    if (each_key(fields, nf, ls, nl, lengths, count_key, &w) != 0)
        return -1;
    if (w.found == PyDict_Size(dict))
        return 0;
    while (rc == 1 && PyDict_Next(dict, &pos, &w.k, &v))
        rc = each_key(fields, nf, ls, nl, lengths, same_key, &w);
    if (rc == 1)
        return 0; /* every key read (a key counted twice: "a/buckets" beside a hashed "a") */
    if (rc < 0 || (w.names = PyList_New(0)) == NULL ||
        each_key(fields, nf, ls, nl, lengths, list_key, &w) != 0) {
        Py_XDECREF(w.names);
        return -1;
    }
    sep = PyUnicode_FromString(", ");
    joined = sep != NULL ? PyUnicode_Join(sep, w.names) : NULL;
    if (joined != NULL)
        PyErr_Format(PyExc_ValueError,
                     "%R is no %s of message %s; its keys: %U (a SparseFeature or "
                     "RaggedFeature is given whole, not by the keys it reads; KEY/buckets, "
                     "KEY/one_hot and KEY/multi_hot only beside a hashed feature)",
                     w.k,
                     lengths       ? "feature list of fixed frames (lengths)"
                     : lists       ? "feature list"
                     : m->sd != NULL ? "context feature"
                                     : "feature",
                     m->name, joined);
    Py_DECREF(w.names);
    Py_XDECREF(sep);
    Py_XDECREF(joined);
    return -1;
}

int fcpy_check_keys(const fcpy_message *m, PyObject *item)
{
    PyObject *ctx, *lists;
    if (parts_of(m, item, &ctx, &lists) != 0 || check_dict_keys(m, ctx, 0, 0) != 0)
        return -1;
    if (lists != NULL && check_dict_keys(m, lists, 1, 0) != 0)
        return -1;
    if (m->sd != NULL && PyTuple_Size(item) == 3) {
        PyObject *lengths = PyTuple_GetItem(item, 2);
        if (!PyDict_Check(lengths)) {
            PyErr_SetString(PyExc_TypeError, "a sequence_example batch's lengths are a dict "
                            "(feature list -> frames), as read() gives");
            return -1;
        }
        return check_dict_keys(m, lengths, 1, 1);
    }
    return 0;
}

/* Whether v, the value of a field or list whose bytes are decoded with `as
 * T[dims]` (as), comes as read()'s tensor (numbers of the tensor's rank)
 * rather than as bytes (bytes, a featc Bytes, a list or array of bytes: as
 * bytes, never through a NumPy 'S' array, which drops trailing NUL bytes). */
static int given_tensor(const char *key, size_t key_len, const fc_field_as *as, PyObject *dict)
{
    PyObject *name, *v, *first = NULL;
    int tensor;
    if (as == NULL || as->rank == 0)
        return 0;
    name = fcpy_key_str(key, key_len);
    v = name != NULL ? PyDict_GetItemWithError(dict, name) : NULL;
    Py_XDECREF(name);
    if (v == NULL)
        return 0;
    if ((PyList_Check(v) || PyTuple_Check(v)) && PySequence_Size(v) == 0)
        return 0; /* no values (a list without frames): bytes as well */
    if ((PyList_Check(v) || PyTuple_Check(v)) && PySequence_Size(v) > 0)
        first = PySequence_GetItem(v, 0);
    tensor = !PyBytes_Check(v) && !PyByteArray_Check(v) && !is_featc_bytes(v) &&
             (first == NULL || (!PyBytes_Check(first) && !PyByteArray_Check(first)));
    if (tensor && PyObject_HasAttrString(v, "dtype")) {
        int kind = fcpy_dtype_kind(v);
        tensor = kind > 0 && strchr("iubf", kind) != NULL;
    }
    Py_XDECREF(first);
    PyErr_Clear();
    return tensor;
}

/* A field's type and rank as write() takes its value in dict (see
 * given_tensor). */
static fc_type given_type(const fc_field_desc *f, PyObject *dict)
{
    return given_tensor(f->key, f->key_len, f->extra->as, dict) ? FC_TYPE_INT64 : f->type;
}

static Py_ssize_t given_rank(const fc_field_desc *f, PyObject *dict)
{
    return given_tensor(f->key, f->key_len, f->extra->as, dict) ? (Py_ssize_t)f->extra->as->rank
                                                                 : (Py_ssize_t)f->rank;
}

int fcpy_record_form(const fcpy_message *m, PyObject *item)
{
    const fc_field_desc *fields = m->md != NULL ? m->md->fields : m->sd->context;
    size_t nf = m->md != NULL ? m->md->nfields : m->sd->ncontext, i;
    PyObject *ctx, *lists;
    const char *who = NULL;
    int form = FORM_EITHER;
    if (parts_of(m, item, &ctx, &lists) != 0)
        return -1;
    if (m->sd != NULL && PyTuple_Size(item) == 3)
        return FCPY_BATCH; /* lengths come with a batch only */
    for (i = 0; i < nf; i++) {
        const fc_field_desc *f = &fields[i];
        Py_ssize_t parts = f->kind == FC_KIND_RAGGED ? (Py_ssize_t)f->extra->nparts : 0;
        if (!f->extra->hidden &&
            agree(ctx, f->key, f->key_len, f->kind, given_type(f, ctx),
                  given_rank(f, ctx) + (f->kind == FC_KIND_ROWS), parts, &form, &who) != 0)
            return -1;
    }
    for (i = 0; m->sd != NULL && i < m->sd->nlists; i++) {
        const fc_list_desc *l = &m->sd->lists[i];
        Py_ssize_t parts = l->kind == FC_KIND_RAGGED ? (Py_ssize_t)l->extra->nparts : 0;
        /* a list is a dense [T, ...] or a Ragged over its frames; a VarLen
         * list's frames may also be a sequence of value lists (of any
         * lengths: not an array) */
        fc_kind k = l->kind == FC_KIND_FIXED    ? FC_KIND_FIXED
                    : l->kind == FC_KIND_VARLEN ? FC_KIND_VARLEN
                                                : FC_KIND_RAGGED;
        const fc_field_as *as = l->extra != NULL ? l->extra->as : NULL;
        int tensor = given_tensor(l->key, l->key_len, as, lists); /* decode_raw's frames */
        if ((l->extra == NULL || !l->extra->hidden) &&
            agree(lists, l->key, l->key_len, k, tensor ? FC_TYPE_INT64 : l->type,
                  (Py_ssize_t)(tensor ? as->rank : l->rank) + 1, parts + 1, &form, &who) != 0)
            return -1;
    }
    return form == FORM_RECORD ? FCPY_RECORD : form == FORM_BATCH ? FCPY_BATCH : FCPY_EITHER;
}

/* [0, n] as a list. */
static PyObject *outer_splits(Py_ssize_t n)
{
    return Py_BuildValue("[nn]", (Py_ssize_t)0, n);
}

/* Ragged(values, splits), splits taken. */
static PyObject *ragged(PyObject *values, PyObject *splits)
{
    PyObject *r;
    if (values == NULL || splits == NULL) {
        Py_XDECREF(values);
        Py_XDECREF(splits);
        return NULL;
    }
    r = PyStructSequence_New((PyTypeObject *)fcpy_g.ragged_type);
    if (r == NULL) {
        Py_DECREF(values);
        Py_DECREF(splits);
        return NULL;
    }
    PyStructSequence_SetItem(r, 0, values);
    PyStructSequence_SetItem(r, 1, splits);
    return r;
}

/* A dense value with the batch's dimension in front: [1, ...]; *outer,
 * when not NULL, gets its first dimension (a list's frames). */
static PyObject *dense_batch(PyObject *v, fc_type t, Py_ssize_t *outer)
{
    PyObject *a = as_array(v, t), *shape, *one, *full, *r;
    if (a == NULL)
        return NULL;
    shape = PyObject_GetAttrString(a, "shape");
    if (shape != NULL && outer != NULL)
        *outer = PyTuple_Size(shape) > 0 ? PyLong_AsSsize_t(PyTuple_GetItem(shape, 0)) : 0;
    one = shape != NULL ? Py_BuildValue("(i)", 1) : NULL;
    full = one != NULL ? PySequence_Concat(one, shape) : NULL;
    Py_XDECREF(one);
    r = full != NULL ? PyObject_CallMethod(a, "reshape", "(O)", full) : NULL;
    Py_XDECREF(full);
    Py_XDECREF(shape);
    Py_DECREF(a);
    return r;
}

/* A record's values (VarLen, or a RaggedFeature without partitions) as a
 * batch's Ragged: the values flat, splits [0, n]. */
static PyObject *values_batch(PyObject *v, fc_type t)
{
    PyObject *a, *flat;
    Py_ssize_t n;
    if (t == FC_TYPE_BYTES && PyObject_TypeCheck(v, (PyTypeObject *)fcpy_g.bytes_type)) {
        flat = Py_NewRef(v); /* featc's own Bytes of one record: flat already */
    } else {
        a = as_array(v, t);
        flat = a != NULL ? PyObject_CallMethod(a, "reshape", "(i)", -1) : NULL;
        Py_XDECREF(a);
    }
    if (flat == NULL || (n = PyObject_Length(flat)) < 0) {
        Py_XDECREF(flat);
        return NULL;
    }
    return ragged(flat, outer_splits(n));
}

/* A record's Ragged (its rows' splits, or a list's over its frames first)
 * as a batch's: splits [0, rows] in front. */
static PyObject *ragged_batch(PyObject *v, fc_type t)
{
    PyObject *rs = PyTuple_GetItem(v, 1), *splits;
    Py_ssize_t n = PyTuple_Check(rs) ? PyTuple_Size(rs) : 1, rows, k;
    PyObject *first = PyTuple_Check(rs) ? PyTuple_GetItem(rs, 0) : rs;
    if (first == NULL || (rows = PyObject_Length(first)) < 0)
        return NULL;
    splits = PyTuple_New(n + 1);
    if (splits == NULL)
        return NULL;
    PyTuple_SetItem(splits, 0, outer_splits(rows > 0 ? rows - 1 : 0));
    for (k = 0; k < n; k++)
        PyTuple_SetItem(splits, k + 1, Py_NewRef(PyTuple_Check(rs) ? PyTuple_GetItem(rs, k) : rs));
    return ragged(typed_values(PyTuple_GetItem(v, 0), t), splits);
}

/* A VarLen list's frames given as a sequence of value lists, as a batch's
 * Ragged: the values flat, splits [0, frames] and over the frames. */
static PyObject *frames_batch(PyObject *v, fc_type t)
{
    PyObject *seq = PySequence_List(v), *values, *inner;
    Py_ssize_t n, k, total = 0;
    if (seq == NULL)
        return NULL;
    n = PyList_Size(seq);
    values = PyList_New(0);
    inner = PyList_New(n + 1);
    if (values == NULL || inner == NULL)
        goto fail;
    PyList_SetItem(inner, 0, PyLong_FromSsize_t(0));
    for (k = 0; k < n; k++) {
        PyObject *a = as_array(PyList_GetItem(seq, k), t), *flat, *items;
        flat = a != NULL ? PyObject_CallMethod(a, "reshape", "(i)", -1) : NULL;
        Py_XDECREF(a);
        items = flat != NULL ? PySequence_List(flat) : NULL;
        Py_XDECREF(flat);
        if (items == NULL)
            goto fail;
        total += PyList_Size(items);
        if (PyList_SetSlice(values, PY_SSIZE_T_MAX, PY_SSIZE_T_MAX, items) != 0) {
            Py_DECREF(items);
            goto fail;
        }
        Py_DECREF(items);
        PyList_SetItem(inner, k + 1, PyLong_FromSsize_t(total));
    }
    Py_DECREF(seq);
    /* (as an array of the list's dtype: frames all empty are no floats) */
    {
        PyObject *typed = as_array(values, t);
        Py_DECREF(values);
        return ragged(typed, Py_BuildValue("(NN)", outer_splits(n), inner));
    }
fail:
    Py_DECREF(seq);
    Py_XDECREF(values);
    Py_XDECREF(inner);
    return NULL;
}

/* A record's Sparse (indices [N, rank], dense_shape [rank]) as a batch's:
 * record 0 in front of each index and of the shape. */
static PyObject *sparse_batch(PyObject *v, Py_ssize_t rank, fc_type t)
{
    PyObject *ind = PyObject_CallFunctionObjArgs(fcpy_g.asarray, PyTuple_GetItem(v, 0), NULL);
    PyObject *shape = PySequence_List(PyTuple_GetItem(v, 2)), *rows, *out = NULL, *r, *values;
    Py_ssize_t n = 0, k, q;
    rows = ind != NULL ? PyObject_CallMethod(ind, "tolist", NULL) : NULL;
    Py_XDECREF(ind);
    if (rows == NULL || shape == NULL || !PyList_Check(rows))
        goto done;
    n = PyList_Size(rows);
    if ((out = PyList_New(n)) == NULL)
        goto done;
    for (k = 0; k < n; k++) {
        PyObject *row = PySequence_List(PyList_GetItem(rows, k)), *wide;
        if (row == NULL || PyList_Size(row) != rank) {
            if (row != NULL)
                PyErr_Format(PyExc_ValueError, "a Sparse with indices [N, %zd] for its N values",
                             rank);
            Py_XDECREF(row);
            Py_CLEAR(out);
            goto done;
        }
        wide = PyList_New(rank + 1);
        if (wide == NULL) {
            Py_DECREF(row);
            Py_CLEAR(out);
            goto done;
        }
        PyList_SetItem(wide, 0, PyLong_FromLong(0));
        for (q = 0; q < rank; q++)
            PyList_SetItem(wide, q + 1, Py_NewRef(PyList_GetItem(row, q)));
        Py_DECREF(row);
        PyList_SetItem(out, k, wide);
    }
    if (PyList_Insert(shape, 0, r = PyLong_FromLong(1)) != 0)
        Py_CLEAR(out);
    Py_XDECREF(r);
done:
    Py_XDECREF(rows);
    if (out == NULL) {
        Py_XDECREF(shape);
        return NULL;
    }
    /* an empty list of indices must still be [0, rank + 1] */
    if (n == 0) {
        Py_DECREF(out);
        out = PyObject_CallFunction(fcpy_g.zeros, "((nn)O)", (Py_ssize_t)0, rank + 1,
                                    fcpy_g.dtype[DT_INT64]);
        if (out == NULL) {
            Py_DECREF(shape);
            return NULL;
        }
    }
    values = typed_values(PyTuple_GetItem(v, 1), t);
    r = values != NULL ? PyStructSequence_New((PyTypeObject *)fcpy_g.sparse_type) : NULL;
    if (r == NULL) {
        Py_XDECREF(values);
        Py_DECREF(out);
        Py_DECREF(shape);
        return NULL;
    }
    PyStructSequence_SetItem(r, 0, out);
    PyStructSequence_SetItem(r, 1, values);
    PyStructSequence_SetItem(r, 2, shape);
    return r;
}

/* out[key] = the batch form of src[key], when src has it. */
static int convert(PyObject *src, PyObject *out, PyObject *lengths, const char *key,
                   size_t key_len, fc_kind kind, fc_type t, Py_ssize_t rank, int list)
{
    PyObject *name = fcpy_key_str(key, key_len), *v, *b = NULL;
    Py_ssize_t frames = 0;
    int rc = -1;
    if (name == NULL)
        return -1;
    v = PyDict_GetItemWithError(src, name);
    if (v == NULL) {
        Py_DECREF(name);
        return PyErr_Occurred() ? -1 : 0;
    }
    if (kind == FC_KIND_SPARSE && fcpy_is_sparse(v) && width_of(PyTuple_GetItem(v, 0)) != rank + 1)
        b = PyErr_Occurred() ? NULL : sparse_batch(v, rank, t);
    else if (kind == FC_KIND_SPARSE || fcpy_is_sparse(v))
        b = Py_NewRef(v);
    else if (fcpy_is_ragged(v))
        b = ragged_batch(v, t);
    else if (kind == FC_KIND_FIXED || kind == FC_KIND_ROWS)
        b = dense_batch(v, t, list ? &frames : NULL);
    else if (list && (PyList_Check(v) || PyTuple_Check(v)))
        b = frames_batch(v, t);
    else
        b = values_batch(v, t);
    if (b != NULL && PyDict_SetItem(out, name, b) == 0)
        rc = 0;
    if (rc == 0 && list && kind == FC_KIND_FIXED) {
        PyObject *len = Py_BuildValue("[n]", frames);
        rc = len != NULL && PyDict_SetItem(lengths, name, len) == 0 ? 0 : -1;
        Py_XDECREF(len);
    }
    Py_XDECREF(b);
    Py_DECREF(name);
    return rc;
}

PyObject *fcpy_record_batch(const fcpy_message *m, PyObject *item)
{
    const fc_field_desc *fields = m->md != NULL ? m->md->fields : m->sd->context;
    size_t nf = m->md != NULL ? m->md->nfields : m->sd->ncontext, i;
    PyObject *ctx, *lists, *octx = PyDict_New(), *olists = NULL, *lengths = NULL;
    if (octx == NULL || parts_of(m, item, &ctx, &lists) != 0)
        goto fail;
    for (i = 0; i < nf; i++)
        if (!fields[i].extra->hidden && convert(ctx, octx, NULL, fields[i].key, fields[i].key_len,
                                                fields[i].kind, given_type(&fields[i], ctx),
                                                given_rank(&fields[i], ctx), 0) != 0)
            goto fail;
    if (m->md != NULL)
        return octx;
    if ((olists = PyDict_New()) == NULL || (lengths = PyDict_New()) == NULL)
        goto fail;
    for (i = 0; i < m->sd->nlists; i++) {
        const fc_list_desc *l = &m->sd->lists[i];
        const fc_field_as *as = l->extra != NULL ? l->extra->as : NULL;
        int tensor = given_tensor(l->key, l->key_len, as, lists);
        if ((l->extra == NULL || !l->extra->hidden) &&
            convert(lists, olists, lengths, l->key, l->key_len, l->kind,
                    tensor ? FC_TYPE_INT64 : l->type, (Py_ssize_t)(tensor ? as->rank : l->rank),
                    1) != 0)
            goto fail;
    }
    return Py_BuildValue("(NNN)", octx, olists, lengths);
fail:
    Py_XDECREF(octx);
    Py_XDECREF(olists);
    Py_XDECREF(lengths);
    return NULL;
}
