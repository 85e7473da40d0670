/* NumPy arrays over featc's memory: blocks (memory arrays are views of),
 * array and shape helpers, and featc.Bytes, a column of bytes values. */
#include "ext.h"

#include <pthread.h>

/* NumPy's C API makes the arrays over a block: one call, the block as the
 * array's base (about a fifth of the instructions of numpy.asarray over an
 * object exporting the buffer protocol, which this file used before).  Its
 * table of functions is this file's own (static), filled at import. */
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

static void spares_fork_safe(void);

int fcpy_arrays_init(void)
{
    spares_fork_safe();
    import_array1(-1);
    return 0;
}

/* ------------------------------------------------------------ blocks */

void *fcpy_alloc16(size_t size)
{
    void *p = NULL;
    if (posix_memalign(&p, FC_BATCH_ALIGN, size > 0 ? size : 1) != 0)
        return NULL;
    return p;
}

/* Spare batch blocks: the memory of the last blocks freed, which the
 * next batches of the same size take instead of new memory.  In the usual
 * loop (for batch in read(...)) a batch is dropped once the next one is
 * out, so with one parse thread two blocks take turns, warm in the caches,
 * as one bound block does in C; with threads, each parses into a block of
 * its own while the caller holds the last, so up to SPARES are kept (a
 * block past the mmap threshold that went back to malloc would be mapped
 * anew and fault in every page it is written to, at each batch).  Blocks
 * are freed with the GIL and taken by parse threads without it: a mutex.
 * The newest are kept; the memory they hold is at most SPARES blocks. */
#define SPARES 4
static pthread_mutex_t spare_mu = PTHREAD_MUTEX_INITIALIZER;
static void *spare_mem[SPARES];
static size_t spare_size[SPARES];
static unsigned nspare;

void *fcpy_block_take(size_t size)
{
    void *p = NULL;
    unsigned k;
    pthread_mutex_lock(&spare_mu);
    for (k = nspare; k-- > 0;)
        if (spare_size[k] == size) {
            p = spare_mem[k];
            spare_mem[k] = spare_mem[nspare - 1];
            spare_size[k] = spare_size[nspare - 1];
            nspare--;
            break;
        }
    pthread_mutex_unlock(&spare_mu);
    return p != NULL ? p : fcpy_alloc16(size);
}

/* mem (size bytes) becomes a spare, or is freed: the oldest spare goes when
 * there are SPARES, and every spare of another size (another spec or batch
 * size took over). */
void fcpy_block_give(void *mem, size_t size)
{
    void *old[SPARES + 1];
    unsigned k, n = 0, kept = 0;
    if (mem == NULL)
        return;
    pthread_mutex_lock(&spare_mu);
    for (k = 0; k < nspare; k++) {
        if (spare_size[k] != size || (nspare == SPARES && k == 0 && kept == 0)) {
            old[n++] = spare_mem[k];
            continue;
        }
        spare_mem[kept] = spare_mem[k];
        spare_size[kept++] = spare_size[k];
    }
    spare_mem[kept] = mem;
    spare_size[kept++] = size;
    nspare = kept;
    pthread_mutex_unlock(&spare_mu);
    for (k = 0; k < n; k++)
        free(old[k]);
}

/* A shelf of spare buffers, newest last: what the next taker that fits
 * gets instead of new memory.  Up to max of them, keep bytes in all (the
 * oldest go first); taken by parse threads without the GIL: a mutex. */
#define SHELF_MAX 8
typedef struct shelf {
    pthread_mutex_t mu;
    void *mem[SHELF_MAX];
    size_t cap[SHELF_MAX];
    unsigned n, max;
    size_t keep;
    void (*drop)(void *mem, size_t cap);
} shelf;

/* The smallest spare of s with room for size bytes (tight: no more than a
 * quarter over it), taken off the shelf, *cap its size; or NULL. */
static void *shelf_take(shelf *s, size_t size, int tight, size_t *cap)
{
    void *p = NULL;
    unsigned k, best = SHELF_MAX;
    pthread_mutex_lock(&s->mu);
    for (k = 0; k < s->n; k++)
        if (s->cap[k] >= size && (!tight || s->cap[k] - size <= size / 4) &&
            (best == SHELF_MAX || s->cap[k] < s->cap[best]))
            best = k;
    if (best < SHELF_MAX) {
        p = s->mem[best];
        *cap = s->cap[best];
        for (k = best; k + 1 < s->n; k++) {
            s->mem[k] = s->mem[k + 1];
            s->cap[k] = s->cap[k + 1];
        }
        s->n--;
    }
    pthread_mutex_unlock(&s->mu);
    return p;
}

/* mem (cap bytes) onto the shelf, or dropped when it alone passes keep. */
static void shelf_give(shelf *s, void *mem, size_t cap)
{
    void *old[SHELF_MAX];
    size_t old_cap[SHELF_MAX], total = cap;
    unsigned k, n = 0;
    if (cap > s->keep) {
        s->drop(mem, cap);
        return;
    }
    pthread_mutex_lock(&s->mu);
    for (k = 0; k < s->n; k++)
        total += s->cap[k];
    while (s->n > 0 && (s->n == s->max || total > s->keep)) {
        old[n] = s->mem[0];
        old_cap[n++] = s->cap[0];
        total -= s->cap[0];
        for (k = 0; k + 1 < s->n; k++) {
            s->mem[k] = s->mem[k + 1];
            s->cap[k] = s->cap[k + 1];
        }
        s->n--;
    }
    s->mem[s->n] = mem;
    s->cap[s->n++] = cap;
    pthread_mutex_unlock(&s->mu);
    for (k = 0; k < n; k++)
        s->drop(old[k], old_cap[k]);
}

static void drop_malloc(void *mem, size_t cap)
{
    (void)cap;
    free(mem);
}

/* Spare big buffers: a reader's slot of copied records past a megabyte
 * (reader.c) is given back here when the reader goes, and the next
 * reader's slots take it, its pages already in (a new map faulted in a
 * huge page or 400 small ones at each read() of wide): 8 of them, 32 MiB
 * in all. */
static shelf bigs = {PTHREAD_MUTEX_INITIALIZER, {NULL}, {0}, 0, 8, (size_t)32 << 20,
                     fc_huge_free};

void *fcpy_big_take(size_t *cap)
{
    void *p = shelf_take(&bigs, *cap, 0, cap);
    return p != NULL ? p : fc_huge_alloc(cap);
}

void fcpy_big_give(void *mem, size_t cap)
{
    if (mem != NULL)
        shelf_give(&bigs, mem, cap);
}

/* Spare packed columns.  A batch's bytes column is copied into memory of
 * its own (fcpy_pack_bytes), which the column's Bytes holds: the sequence
 * corpus's tags are 640 KB a batch.  glibc's malloc maps such a size or,
 * once its thresholds have risen, takes it from the top of a heap it
 * trims: either way a batch faulted its pack's pages in anew (550 faults
 * a pass over the sequence corpus after a pass over wide, 40% of the
 * pass).  Packs of PACK_MIN bytes or more are made with their size
 * rounded up (by at most an eighth), and when their Bytes goes, kept for
 * a later pack that fits them and is no more than a quarter smaller: 4 of
 * them, 32 MiB in all. */
#define PACK_MIN ((size_t)64 << 10)
static shelf packs = {PTHREAD_MUTEX_INITIALIZER, {NULL}, {0}, 0, 4, (size_t)32 << 20,
                      drop_malloc};

void *fcpy_pack_take(size_t size, size_t *cap)
{
    size_t step = 1, c;
    void *p;
    *cap = 0;
    if (size < PACK_MIN || size > packs.keep)
        return fcpy_alloc16(size);
    if ((p = shelf_take(&packs, size, 1, cap)) != NULL)
        return p;
    while (step <= size / 16) /* (the largest power of 2 up to an eighth) */
        step *= 2;
    c = (size + step - 1) / step * step;
    p = fcpy_alloc16(c);
    *cap = p != NULL ? c : 0;
    return p;
}

void fcpy_pack_give(void *mem, size_t cap)
{
    if (mem == NULL)
        return;
    if (cap == 0)
        free(mem);
    else
        shelf_give(&packs, mem, cap);
}

/* The spares' mutexes across fork(): a parse thread may hold one when
 * another thread forks, and the child, which has no such thread, would
 * then wait for it for ever at its first batch.  pthread_atfork's
 * handlers take all three before the fork (no list is then half
 * changed) and give them back after it, in the parent and the child. */
static void spares_lock(void)
{
    pthread_mutex_lock(&spare_mu);
    pthread_mutex_lock(&bigs.mu);
    pthread_mutex_lock(&packs.mu);
}

static void spares_unlock(void)
{
    pthread_mutex_unlock(&packs.mu);
    pthread_mutex_unlock(&bigs.mu);
    pthread_mutex_unlock(&spare_mu);
}

static pthread_once_t spares_once = PTHREAD_ONCE_INIT;

static void spares_atfork(void)
{
    (void)pthread_atfork(spares_lock, spares_unlock, spares_unlock);
}

static void spares_fork_safe(void)
{
    (void)pthread_once(&spares_once, spares_atfork);
}

/* A block object that owns mem (freed here on failure). */
PyObject *fcpy_block_new(void *mem, size_t size, int batch)
{
    block_object *b = PyObject_New(block_object, (PyTypeObject *)fcpy_g.block_type);
    if (b == NULL) {
        free(mem);
        return NULL;
    }
    b->mem = mem;
    b->size = size;
    b->batch = batch;
    b->cap = 0;
    return (PyObject *)b;
}

static void block_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    block_object *b = (block_object *)self;
    if (b->batch == 1)
        fcpy_block_give(b->mem, b->size);
    else if (b->batch == 2)
        fcpy_pack_give(b->mem, b->cap);
    else
        free(b->mem);
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

PyObject *fcpy_shape_tuple(const int64_t *shape, unsigned rank)
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

size_t fcpy_dt_size(int dt)
{
    static const unsigned char sizes[DT_COUNT] = {8, 4, 1, 1, 2, 2, 4, 2, 8};
    return dt >= 0 && dt < DT_COUNT ? sizes[dt] : 0;
}

/* A NumPy array of n values of type dt at ptr (inside owner's block),
 * shaped as shape[0..rank) (rank 0: one dimension of n), whose product
 * is n. */
PyObject *fcpy_view_array(PyObject *owner, const void *ptr, int dt, size_t n,
                          const int64_t *shape, unsigned rank)
{
    static const int types[DT_COUNT] = {NPY_INT64, NPY_FLOAT32, NPY_UINT8,  NPY_INT8, NPY_INT16,
                                        NPY_UINT16, NPY_INT32,   NPY_FLOAT16, NPY_FLOAT64};
    npy_intp dims[FC_MAX_RANK + 2];
    PyObject *arr;
    int64_t flat = (int64_t)n;
    unsigned k;
    if (rank == 0) {
        shape = &flat;
        rank = 1;
    }
    for (k = 0; k < rank; k++)
        dims[k] = (npy_intp)shape[k];
    if (n == 0)
        return PyArray_Zeros((int)rank, dims, PyArray_DescrFromType(types[dt]), 0);
    arr = PyArray_New(&PyArray_Type, (int)rank, dims, types[dt], NULL, (void *)(uintptr_t)ptr, 0,
                      NPY_ARRAY_CARRAY, NULL);
    if (arr == NULL)
        return NULL;
    Py_INCREF(owner);
    if (PyArray_SetBaseObject((PyArrayObject *)arr, owner) != 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return arr;
}

/* A small int64 array holding shape[0..rank) (a SparseTensor's
 * dense_shape): NumPy's own array (one C call: numpy.array over a tuple
 * cost a Python call per sparse column per batch). */
PyObject *fcpy_shape_array(const int64_t *shape, unsigned rank)
{
    npy_intp d = (npy_intp)rank;
    PyObject *arr = PyArray_SimpleNew(1, &d, NPY_INT64);
    if (arr != NULL && rank > 0)
        memcpy(PyArray_DATA((PyArrayObject *)arr), shape, rank * sizeof *shape);
    return arr;
}

/* ------------------------------------------------------------ bytes */

/* Copies n bytes; most values are a few bytes, for which a call to
 * memcpy costs more than the copy: two overlapping loads and stores. */
static void copy_value(unsigned char *d, const unsigned char *s, size_t n)
{
    uint64_t a, b;
    uint32_t x, y;
    if (n > 16) {
        memcpy(d, s, n);
    } else if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        memcpy(d, &x, 4);
        memcpy(d + n - 4, &y, 4);
    } else {
        size_t k;
        for (k = 0; k < n; k++)
            d[k] = s[k];
    }
}

int fcpy_pack_bytes(packed *p, const fc_bytes *v, size_t n, const unsigned char *lo,
                    const unsigned char *hi)
{
    size_t total, k, head, span;
    uint64_t sum = 0, any = 0;
    int64_t *off;
    unsigned char *data;
    if (n >= (SIZE_MAX / 2) / sizeof(int64_t) - 1)
        return -1;
    for (k = 0; k < n; k++) {
        sum += v[k].size;
        any |= v[k].size;
    }
    if ((any >> 32) != 0 || n >= (size_t)1 << 31) {
        /* (under 2^31 sizes under 2^32 cannot wrap the sum: else checked) */
        for (k = 0, sum = 0; k < n; k++) {
            uint64_t size = v[k].size;
            sum += size;
            if (sum < size) /* wrapped */
                return -1;
        }
    }
    if (sum > SIZE_MAX / 2)
        return -1;
    total = (size_t)sum;
    head = (n + 1) * sizeof(int64_t);
    /* (16 bytes past the values: room for the last one's copy of 16) */
    p->mem = fcpy_pack_take(head + total + 16, &p->cap);
    if (p->mem == NULL)
        return -1;
    p->size = head + total;
    p->n = n;
    off = (int64_t *)p->mem;
    data = (unsigned char *)p->mem + head;
    off[0] = 0;
    span = lo != NULL && hi - lo >= 16 ? (size_t)(hi - lo) - 16 : 0;
    if (span == 0) {
        for (k = 0, total = 0; k < n; k++) {
            size_t size = v[k].size; /* (read before the store to off, which may alias it) */
            copy_value(data + total, v[k].data, size);
            total += size;
            off[k + 1] = (int64_t)total;
        }
        return 0;
    }
    for (k = 0, total = 0; k < n;) {
        /* a short value where 16 bytes can be read: one copy of 16 (the
         * next value's overwrites what is past it), not a branch on its
         * size; unsigned: a src below lo wraps past span.  (The others
         * outside this loop: without a call in it, nothing in it spills.) */
        for (; k < n; k++) {
            const uint8_t *src = v[k].data;
            size_t size = v[k].size;
            if (size > 16 || (uintptr_t)src - (uintptr_t)lo > span)
                break;
            memcpy(data + total, src, 16);
            total += size;
            off[k + 1] = (int64_t)total;
        }
        if (k < n) {
            size_t size = v[k].size;
            copy_value(data + total, v[k].data, size);
            total += size;
            off[k + 1] = (int64_t)total;
            k++;
        }
    }
    return 0;
}

static PyObject *bytes_new(PyObject *owner, const int64_t *offsets, const unsigned char *data,
                           size_t n, PyObject *shape)
{
    bytes_object *b = PyObject_GC_New(bytes_object, (PyTypeObject *)fcpy_g.bytes_type);
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
PyObject *fcpy_bytes_from_packed(packed *p, const int64_t *shape, unsigned rank)
{
    int64_t flat = (int64_t)p->n;
    PyObject *owner, *tup, *r;
    tup = rank == 0 ? fcpy_shape_tuple(&flat, 1) : fcpy_shape_tuple(shape, rank);
    if (tup == NULL)
        return NULL;
    owner = fcpy_block_new(p->mem, p->size, 2);
    p->mem = NULL;
    if (owner == NULL) {
        Py_DECREF(tup);
        return NULL;
    }
    ((block_object *)owner)->cap = p->cap;
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

/* b[i] (flat, as the sequence protocol gives it, negative from the end) or
 * b[start:stop:step]: the values the slice selects, in flat order, as a new
 * one-dimensional featc.Bytes of their own (copied: its data and offsets
 * start at 0), as a list's slice is a list. */
static PyObject *bytes_subscript(PyObject *self, PyObject *key)
{
    bytes_object *b = (bytes_object *)self;
    Py_ssize_t start, stop, step, k, i, n;
    fc_bytes *v;
    packed p;
    int64_t dim;
    PyObject *r;
    if (PyIndex_Check(key)) {
        i = PyNumber_AsSsize_t(key, PyExc_IndexError);
        if (i == -1 && PyErr_Occurred())
            return NULL;
        return bytes_item(self, i < 0 ? i + b->n : i);
    }
    if (!PySlice_Check(key)) {
        PyErr_SetString(PyExc_TypeError, "featc.Bytes indices must be integers or slices");
        return NULL;
    }
    if (PySlice_Unpack(key, &start, &stop, &step) != 0)
        return NULL;
    n = PySlice_AdjustIndices(b->n, &start, &stop, step);
    v = (fc_bytes *)PyMem_Malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    if (v == NULL)
        return PyErr_NoMemory();
    for (k = 0, i = start; k < n; k++, i += step) {
        v[k].data = b->data + b->offsets[i];
        v[k].size = (size_t)(b->offsets[i + 1] - b->offsets[i]);
    }
    memset(&p, 0, sizeof p);
    if (fcpy_pack_bytes(&p, v, (size_t)n, NULL, NULL) != 0) {
        PyMem_Free(v);
        return PyErr_NoMemory();
    }
    PyMem_Free(v);
    dim = (int64_t)n;
    r = fcpy_bytes_from_packed(&p, &dim, 1);
    free(p.mem); /* NULL once the new object owns it */
    return r;
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
    arr = PyObject_CallFunction(fcpy_g.zeros, "(n)s", b->n, "O");
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
    (void)closure;
    return fcpy_view_array(b->owner, b->offsets, DT_INT64, (size_t)b->n + 1, NULL, 0);
}

static PyObject *bytes_get_data(PyObject *self, void *closure)
{
    bytes_object *b = (bytes_object *)self;
    (void)closure;
    return fcpy_view_array(b->owner, b->data, DT_UINT8, (size_t)b->offsets[b->n], NULL, 0);
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
    {Py_mp_length, FN(bytes_len), NULL},
    {Py_mp_subscript, FN(bytes_subscript), NULL},
    {Py_tp_doc, NULL,
     (void *)"Bytes values of a batch column: one flat buffer (data) with offsets, in the "
             "column's shape; b[i] is the i-th value (flat) as bytes, b[i:j:k] the values "
             "a slice selects (flat) as a one-dimensional featc.Bytes."},
    {0, NULL, NULL}};

PyObject *fcpy_block_type_new(void)
{
    return fcpy_make_type("featc.Block", sizeof(block_object), Py_TPFLAGS_DEFAULT, block_slots);
}

PyObject *fcpy_bytes_type_new(void)
{
    return fcpy_make_type("featc.Bytes", sizeof(bytes_object),
                          Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, bytes_slots);
}

/* The kind letter of arr's dtype ('i', 'u', 'f', 'S', ...), or -1 with
 * the exception set. */
int fcpy_dtype_kind(PyObject *arr)
{
    PyObject *dt = PyObject_GetAttrString(arr, "dtype"), *kind;
    const char *ks;
    int c;
    if (dt == NULL)
        return -1;
    kind = PyObject_GetAttrString(dt, "kind");
    Py_DECREF(dt);
    if (kind == NULL)
        return -1;
    ks = PyUnicode_AsUTF8AndSize(kind, NULL);
    c = ks != NULL ? (unsigned char)ks[0] : -1;
    Py_DECREF(kind);
    return c;
}
