/* Batches into Python: errors as DataError, parsed columns as NumPy
 * arrays, Sparse and Ragged in tf.io.parse_example's layouts, and parse()
 * of one record. */
#include "ext.h"

#include <errno.h>

/* ------------------------------------------------------------ errors */

/* The exception of a failed read or parse: DataError(message) with
 * .message (featc's text), .record, .offset, .path and .status. */
/* exc.name = value (a new reference, taken; NULL: an error is set). */
int fcpy_set_attr(PyObject *exc, const char *name, PyObject *value)
{
    int rc;
    if (value == NULL)
        return -1;
    rc = PyObject_SetAttrString(exc, name, value);
    Py_DECREF(value);
    return rc;
}

void fcpy_raise_error(const fc_error *e, const char *path, uint64_t record, uint64_t offset,
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
    exc = PyObject_CallFunctionObjArgs(fcpy_g.error, msg, NULL);
    Py_DECREF(msg);
    if (exc == NULL)
        return;
    if (fcpy_set_attr(exc, "message", PyUnicode_FromString(e->message)) != 0 ||
        fcpy_set_attr(exc, "record", record != FC_NO_INDEX ? PyLong_FromUnsignedLongLong(record)
                                                      : Py_NewRef(Py_None)) != 0 ||
        fcpy_set_attr(exc, "offset", offset != FC_NO_INDEX ? PyLong_FromUnsignedLongLong(offset)
                                                      : Py_NewRef(Py_None)) != 0 ||
        fcpy_set_attr(exc, "path", path != NULL ? PyUnicode_DecodeFSDefault(path)
                                           : Py_NewRef(Py_None)) != 0 ||
        fcpy_set_attr(exc, "status", PyUnicode_FromString(fc_status_name(e->status))) != 0) {
        Py_DECREF(exc);
        return;
    }
    if (!PyErr_Occurred())
        PyErr_SetObject(fcpy_g.error, exc);
    Py_DECREF(exc);
}

/* ------------------------------------------------------------ batches to Python */

int fcpy_dtype_of(fc_type t)
{
    return t == FC_TYPE_FLOAT ? DT_FLOAT32 : DT_INT64;
}

int fcpy_dtype_of_as(int as)
{
    static const int of_as[FC_AS_LAST + 1] = {DT_INT64,   DT_INT8,  DT_UINT8,
                                             DT_INT16,   DT_UINT16, DT_INT32,
                                             DT_INT64,   DT_FLOAT16, DT_FLOAT32,
                                             DT_FLOAT64};
    return as >= 0 && as <= FC_AS_LAST ? of_as[as] : DT_INT64;
}

/* The dtype of a column's values: its `as` type's, else its type's;
 * DT_BYTES for bytes values. */
static int col_dt(fc_type t, const fc_field_extra *x)
{
    if (x != NULL && x->as != NULL)
        return fcpy_dtype_of_as(x->as->type);
    return t == FC_TYPE_BYTES ? DT_BYTES : fcpy_dtype_of(t);
}

/* The values of column i (shape[0..rank); rank 0: flat). */
static PyObject *values_obj(const batch_out *bo, size_t i, int dt, const int64_t *shape,
                            unsigned rank)
{
    const fc_column *c = &bo->cols[i];
    if (dt == DT_BYTES)
        return fcpy_bytes_from_packed(&bo->packs[i], shape, rank);
    return fcpy_view_array(bo->owner, c->values, dt, c->nvalues, shape, rank);
}

static PyObject *i64_obj(const batch_out *bo, const int64_t *p, size_t n)
{
    return fcpy_view_array(bo->owner, p, DT_INT64, n, NULL, 0);
}

/* A dense column: [B, ...]; for one record, its value: the array without
 * the batch dimension, or a scalar. */
static PyObject *dense_obj(const batch_out *bo, size_t i, int dt)
{
    const fc_column *c = &bo->cols[i];
    PyObject *v, *item;
    if (!bo->single)
        return values_obj(bo, i, dt, c->shape, c->rank);
    if (c->rank > 1)
        return values_obj(bo, i, dt, c->shape + 1, c->rank - 1);
    v = values_obj(bo, i, dt, NULL, 0); /* [1]: a scalar feature */
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
    r = PyStructSequence_New((PyTypeObject *)fcpy_g.ragged_type);
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
static PyObject *sparse_obj(const batch_out *bo, size_t i, int dt, unsigned width)
{
    const fc_column *c = &bo->cols[i];
    int64_t ishape[2];
    PyObject *r, *ind, *vals, *shp;
    unsigned skip = bo->single ? 1u : 0u;
    ishape[0] = (int64_t)c->nindices;
    ishape[1] = (int64_t)width;
    ind = fcpy_view_array(bo->owner, c->indices, DT_INT64, c->nindices * width, ishape, 2);
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
    vals = values_obj(bo, i, dt, NULL, 0);
    shp = fcpy_shape_array(c->shape + skip, c->rank - skip);
    if (ind == NULL || vals == NULL || shp == NULL) {
        Py_XDECREF(ind);
        Py_XDECREF(vals);
        Py_XDECREF(shp);
        return NULL;
    }
    r = PyStructSequence_New((PyTypeObject *)fcpy_g.sparse_type);
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
static PyObject *ragged_col(const batch_out *bo, size_t i, int dt, const fc_field_extra *x,
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
    return ragged_obj(values_obj(bo, i, dt, NULL, 0), splits, n);
}

/* A feature key as a dict key: UTF-8, other bytes as lone surrogates
 * (PEP 383), as the JSON driver spells them. */
PyObject *fcpy_key_str(const char *key, size_t n)
{
    return PyUnicode_DecodeUTF8(key, (Py_ssize_t)n, "surrogateescape");
}

/* The str of a column's key (+ suffix), made once: keys and suffixes are
 * the spec's and this file's constant strings, so their addresses name
 * them.  A table under the GIL; a slot taken by another pair makes a new
 * str each time (still right, just slower). */
#define KEY_SLOTS 256
static struct {
    const char *key, *suffix;
    PyObject *str;
} key_cache[KEY_SLOTS];

PyObject *fcpy_column_key(const char *key, size_t key_len, const char *suffix)
{
    size_t h = (((uintptr_t)key >> 3) ^ ((uintptr_t)suffix >> 2) * 31u) % KEY_SLOTS;
    PyObject *k;
    if (key_cache[h].str != NULL && key_cache[h].key == key && key_cache[h].suffix == suffix) {
        Py_INCREF(key_cache[h].str);
        return key_cache[h].str;
    }
    k = fcpy_key_str(key, key_len);
    if (k != NULL && suffix != NULL) {
        PyObject *s = PyUnicode_FromString(suffix), *ks;
        ks = s != NULL ? PyUnicode_Concat(k, s) : NULL;
        Py_XDECREF(s);
        Py_DECREF(k);
        k = ks;
    }
    if (k != NULL && key_cache[h].str == NULL) {
        key_cache[h].key = key;
        key_cache[h].suffix = suffix;
        key_cache[h].str = k;
        Py_INCREF(k);
    }
    return k;
}

/* d[key + suffix] = v (v taken). */
static int put(PyObject *d, const char *key, size_t key_len, const char *suffix, PyObject *v)
{
    PyObject *k;
    int rc;
    if (v == NULL)
        return -1;
    k = fcpy_column_key(key, key_len, suffix);
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
        v = fcpy_view_array(bo->owner, c->buckets, DT_INT64, c->nvalues, c->shape + skip,
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
        v = fcpy_view_array(bo->owner, c->hot, DT_FLOAT32,
                       c->nvalues * x->hash_buckets, shape + skip, rank - skip);
        return put(d, key, key_len, "/one_hot", v);
    }
    if (x->hot == FC_HOT_MULTI) {
        shape[0] = c->shape[0];
        shape[1] = (int64_t)x->hash_buckets;
        v = fcpy_view_array(bo->owner, c->hot, DT_FLOAT32,
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
                v = values_obj(bo, i, col_dt(f->type, f->extra), NULL, 0);
            else if (bo->ragged)
                v = ragged_col(bo, i, col_dt(f->type, f->extra), NULL, 0);
            else
                v = sparse_obj(bo, i, col_dt(f->type, f->extra), 2);
            break;
        case FC_KIND_SPARSE: v = sparse_obj(bo, i, col_dt(f->type, f->extra), f->rank + 1); break;
        case FC_KIND_RAGGED: v = ragged_col(bo, i, col_dt(f->type, f->extra), f->extra, 0); break;
        default: v = dense_obj(bo, i, col_dt(f->type, f->extra)); break;
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
            v = dense_obj(bo, i, col_dt(l->type, l->extra));
            if (!bo->single &&
                put(lengths, l->key, l->key_len, NULL,
                    i64_obj(bo, c->lengths, (size_t)c->shape[0])) != 0) {
                Py_XDECREF(v);
                return -1;
            }
        } else if (l->kind == FC_KIND_VARLEN && !bo->ragged && !bo->single) {
            v = sparse_obj(bo, i, col_dt(l->type, l->extra), 3);
        } else {
            v = ragged_col(bo, i, col_dt(l->type, l->extra), l->kind == FC_KIND_RAGGED ? l->extra : NULL, 1);
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

size_t fcpy_ncols_of(const fcpy_message *m)
{
    return m->md != NULL ? m->md->nfields : m->sd->ncontext + m->sd->nlists;
}

static size_t bind(const fcpy_message *m, fc_column *cols, size_t b, unsigned forms, void *mem,
                   size_t size)
{
    return m->md != NULL ? fc_batch_bind(m->md, cols, b, forms, mem, size)
                         : fc_batch_bind_seq(m->sd, cols, b, forms, mem, size);
}

/* Whether column i's values are bytes (to pack): not those decoded with
 * `as` (decode_raw), whose column holds numbers. */
static int col_bytes(const fcpy_message *m, size_t i)
{
    const fc_field_desc *f;
    if (m->md != NULL)
        f = &m->md->fields[i];
    else if (i < m->sd->ncontext)
        f = &m->sd->context[i];
    else {
        const fc_list_desc *l = &m->sd->lists[i - m->sd->ncontext];
        return l->type == FC_TYPE_BYTES && (l->extra == NULL || l->extra->as == NULL);
    }
    return f->type == FC_TYPE_BYTES && f->extra->as == NULL;
}

/* A column's buffers, as offsets into the block at base (SIZE_MAX: none),
 * and back: every block of a batch_work has the same size and alignment,
 * so its columns lie where the first block's did, and a batch takes them
 * from there instead of binding anew (fc_batch_bind walks the spec's
 * fields: 4% of a read of small records). */
#define LAYOUT_BUFS (7 + FC_MAX_RANK)

static size_t off_in(const void *p, const unsigned char *base)
{
    return p == NULL ? SIZE_MAX : (size_t)((const unsigned char *)p - base);
}

static void *at_off(size_t off, unsigned char *base)
{
    return off == SIZE_MAX ? NULL : base + off;
}

static void keep_layout(batch_work *w)
{
    const unsigned char *base = (const unsigned char *)w->mem;
    size_t i;
    unsigned q;
    for (i = 0; i < w->ncols; i++) {
        const fc_column *c = &w->cols[i];
        size_t *o = &w->offs[i * LAYOUT_BUFS];
        o[0] = off_in(c->values, base);
        o[1] = off_in(c->indices, base);
        o[2] = off_in(c->row_splits, base);
        o[3] = off_in(c->inner_splits, base);
        o[4] = off_in(c->lengths, base);
        o[5] = off_in(c->buckets, base);
        o[6] = off_in(c->hot, base);
        for (q = 0; q < FC_MAX_RANK; q++)
            o[7 + q] = off_in(c->part_splits[q], base);
    }
    memcpy(w->layout, w->cols, w->ncols * sizeof *w->cols);
    w->have_layout = 1;
}

static void take_layout(batch_work *w)
{
    unsigned char *base = (unsigned char *)w->mem;
    size_t i;
    unsigned q;
    memcpy(w->cols, w->layout, w->ncols * sizeof *w->cols);
    for (i = 0; i < w->ncols; i++) {
        fc_column *c = &w->cols[i];
        const size_t *o = &w->offs[i * LAYOUT_BUFS];
        c->values = at_off(o[0], base);
        c->indices = (int64_t *)at_off(o[1], base);
        c->row_splits = (int64_t *)at_off(o[2], base);
        c->inner_splits = (int64_t *)at_off(o[3], base);
        c->lengths = (int64_t *)at_off(o[4], base);
        c->buckets = (int64_t *)at_off(o[5], base);
        c->hot = (float *)at_off(o[6], base);
        for (q = 0; q < FC_MAX_RANK; q++)
            c->part_splits[q] = (int64_t *)at_off(o[7 + q], base);
    }
}

fc_status fcpy_batch_run(batch_work *w, const fc_bytes *records, size_t n, fc_error *err)
{
    size_t i;
    fc_status rc;
    int aligned;
    w->mem = fcpy_block_take(w->need);
    if (w->mem == NULL) {
        fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "out of memory for a batch");
        return FC_ERR_NO_MEMORY;
    }
    aligned = (uintptr_t)w->mem % FC_BATCH_ALIGN == 0; /* (bound where the next ones will be) */
    if (w->have_layout && aligned) {
        take_layout(w);
    } else {
        memset(w->cols, 0, w->ncols * sizeof *w->cols);
        bind(w->m, w->cols, w->cap, w->forms, w->mem, w->need);
        if (w->layout != NULL && w->offs != NULL && aligned)
            keep_layout(w);
    }
    rc = w->md != NULL ? (fc_status)fc_batch_parse(w->md, w->cols, w->scratch, records, n, err)
                       : (fc_status)fc_batch_parse_seq(w->m->sd, w->cols, w->scratch, records,
                                                       n, err);
    if (rc == FC_OK && w->arrow) {
        /* (the block moves into the arrays; bytes are copied now, while the
         * records are there) */
        rc = (fc_status)fc_arrow_export(w->m->md, w->m->sd,
                                        w->arrow == 2 ? FC_ARROW_LARGE : 0u, w->cols, n, w->mem,
                                        free, &w->arr, NULL, err);
        if (rc == FC_OK)
            w->mem = NULL;
        return rc;
    }
    for (i = 0; i < w->ncols && rc == FC_OK; i++) {
        w->packs[i].mem = NULL;
        if (col_bytes(w->m, i) &&
            fcpy_pack_bytes(&w->packs[i], (const fc_bytes *)w->cols[i].values, w->cols[i].nvalues,
                            w->lo, w->hi) != 0) {
            fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
            fc_msg_str(&m, "out of memory for a batch's bytes values");
            rc = FC_ERR_NO_MEMORY;
        }
    }
    return rc;
}

void fcpy_batch_release(batch_work *w)
{
    size_t i;
    if (w->arr.release != NULL)
        w->arr.release(&w->arr);
    for (i = 0; i < w->ncols; i++) {
        free(w->packs[i].mem);
        w->packs[i].mem = NULL;
    }
    fcpy_block_give(w->mem, w->need);
    w->mem = NULL;
}

int fcpy_batch_work_init(batch_work *w, const fcpy_message *m, size_t cap, unsigned forms)
{
    memset(w, 0, sizeof *w);
    w->m = m;
    w->md = m->md;
    w->ncols = fcpy_ncols_of(m);
    w->cap = cap;
    w->forms = forms;
    w->need = bind(m, NULL, cap, forms, NULL, 0);
    w->cols = (fc_column *)calloc(w->ncols + 1, sizeof *w->cols);
    w->packs = (packed *)calloc(w->ncols + 1, sizeof *w->packs);
    w->scratch = calloc(1, m->md != NULL ? m->md->size : m->sd->size);
    /* (without these, each batch binds anew: slower, not wrong) */
    w->layout = (fc_column *)calloc(w->ncols + 1, sizeof *w->layout);
    w->offs = (size_t *)calloc((w->ncols + 1) * LAYOUT_BUFS, sizeof *w->offs);
    if (w->need == 0 || w->cols == NULL || w->packs == NULL || w->scratch == NULL) {
        PyErr_Format(PyExc_MemoryError,
                     "a batch of %zu records at the spec's bounds needs %zu bytes", cap, w->need);
        return -1;
    }
    return 0;
}

void fcpy_batch_work_free(batch_work *w)
{
    fcpy_batch_release(w);
    free(w->cols);
    free(w->packs);
    free(w->scratch);
    free(w->layout);
    free(w->offs);
    w->cols = NULL;
    w->packs = NULL;
    w->scratch = NULL;
    w->layout = NULL;
    w->offs = NULL;
    w->have_layout = 0;
}

/* The Python batch of a fcpy_batch_run that succeeded; the memory moves into
 * Python objects. */
PyObject *fcpy_batch_wrap(batch_work *w, int ragged, int single)
{
    batch_out bo;
    PyObject *r;
    bo.owner = fcpy_block_new(w->mem, w->need, 1);
    w->mem = NULL;
    if (bo.owner == NULL) {
        fcpy_batch_release(w);
        return NULL;
    }
    bo.cols = w->cols;
    bo.packs = w->packs;
    bo.ragged = ragged;
    bo.single = single;
    r = batch_object(&bo, w->m);
    Py_DECREF(bo.owner);
    fcpy_batch_release(w); /* packs not taken (after an error) */
    return r;
}

/* ------------------------------------------------------------ one record */

PyObject *fcpy_parse(PyObject *module, PyObject *args, PyObject *kw)
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
    if ((m = fcpy_find_message(message)) == NULL)
        return NULL;
    if (PyObject_GetBuffer(record, &view, PyBUF_SIMPLE) != 0)
        return NULL;
    if (fcpy_batch_work_init(&w, m, 1, FC_BATCH_RAGGED) != 0) {
        fcpy_batch_work_free(&w);
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
        s = fcpy_batch_run(&w, &rec, 1, &err);
    Py_END_ALLOW_THREADS
    if (s == FC_OK)
        out = fcpy_batch_wrap(&w, 1, 1);
    else
        fcpy_raise_error(&err, NULL, FC_NO_INDEX, err.offset, 0);
    fcpy_batch_work_free(&w);
    PyBuffer_Release(&view);
    return out;
}
