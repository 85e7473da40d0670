/* The module's schema attribute: the spec's messages as dicts. */
#include "ext.h"

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
    return fcpy_shape_tuple(d, rank);
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
        k = fcpy_key_str(f->key, f->key_len);
        /* dtype and shape: the tensor's; with `as`, record_dtype (and for
         * decode_raw record_shape) what the record holds */
        bad = d == NULL || k == NULL || setv(d, "kind", PyUnicode_FromString(kind_word(f->kind))) ||
              setv(d, "dtype", PyUnicode_FromString(x->as != NULL ? fc_as_name(x->as->type)
                                                                  : type_word(f->type)));
        if (!bad && x->as != NULL)
            bad = setv(d, "record_dtype", PyUnicode_FromString(type_word(f->type)));
        if (!bad && x->as != NULL && x->as->rank > 0)
            bad = setv(d, "shape", dims_tuple(x->as->dims, x->as->rank)) ||
                  setv(d, "record_shape", dims_tuple(f->dims, f->rank));
        else if (!bad && (f->kind == FC_KIND_FIXED || f->kind == FC_KIND_ROWS ||
                          f->kind == FC_KIND_SPARSE))
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
                                   : fcpy_key_str(fields[fi].key, fields[fi].key_len);
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
                            bad = setv(d, "read_by", fcpy_key_str(fields[j].key, fields[j].key_len));
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
        const fc_field_as *as = l->extra != NULL ? l->extra->as : NULL;
        PyObject *d, *k;
        int bad;
        if (l->extra != NULL && l->extra->hidden)
            continue;
        d = PyDict_New();
        k = fcpy_key_str(l->key, l->key_len);
        /* with `as`, as for a feature: dtype the tensor's, record_dtype
         * (and for decode_raw record_frame_shape) what the record holds */
        bad = d == NULL || k == NULL || setv(d, "kind", PyUnicode_FromString(kind_word(l->kind))) ||
              setv(d, "dtype", PyUnicode_FromString(as != NULL ? fc_as_name(as->type)
                                                               : type_word(l->type))) ||
              setv(d, "max_frames", PyLong_FromSize_t(l->max_frames));
        if (!bad && as != NULL)
            bad = setv(d, "record_dtype", PyUnicode_FromString(type_word(l->type)));
        if (!bad && as != NULL && as->rank > 0)
            bad = setv(d, "frame_shape", dims_tuple(as->dims, as->rank)) ||
                  setv(d, "record_frame_shape", dims_tuple(l->dims, l->rank));
        else if (!bad && l->kind == FC_KIND_FIXED)
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
PyObject *fcpy_schema(const fcpy_spec *spec)
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
