/* What the files of featc's Python layer share (not installed): the
 * module's state, the types every file passes around, and each file's
 * functions for the others.  The layer, by file: arrays.c (NumPy arrays
 * over featc's memory, featc.Bytes), batch.c (errors, parsed batches into
 * Python, parse()), reader.c (read(), featc.Reader), writer.c (write()),
 * schema.c (the schema attribute), state.c (the module's state, the type
 * maker, the option parsers: below every other file), prefetch.c
 * (compressed files inflated ahead by threads), shuffle.c (read()'s shuffle
 * buffer), segments.c (segments(), the segment batcher), wait.c (a thread's
 * wait for another: a short spin, then sleep), arrow.c (batches
 * as Arrow arrays, PyCapsules), module.c (the module: registers the others,
 * above them all).  No two files call each other (tests/cli/layout.py).
 *
 * Memory: a batch is parsed into one block (malloc, sized by
 * fc_batch_bind for the batch size at the spec's bounds: pages the batch
 * does not touch are never faulted in); its numeric arrays are NumPy views
 * of that block, which lives as long as any of them.  The last block freed
 * is kept as a spare for the next batch (fcpy_block_take; up to four, for
 * parse threads).  Bytes values are
 * copied out of the records into a block of their own per column (offsets,
 * then the bytes).  Records are read in place from a mapped file or a
 * bytes-like object, else copied into the reader's record buffer.  The GIL
 * is released while records are read and parsed.  Written against the
 * stable ABI of Python 3.11. */
#ifndef FEATC_PY_EXT_H
#define FEATC_PY_EXT_H

#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "featc/fc.h"
#include "featc/fc_arrow.h"
#include "featc/fc_batch.h"
#include "featc/fc_input.h"
#include "featc/fc_python.h"
#include "featc/fc_serialize.h"

#define MAX_BATCH 1000000
#define MAX_THREADS 1024

/* NumPy dtypes by number: the spec's three types' (int64, float32, and
 * uint8 for packed bytes), then the other `as` types'.  DT_BYTES: a
 * column of bytes values (packed, not an array of one dtype). */
enum { DT_INT64, DT_FLOAT32, DT_UINT8, DT_INT8, DT_INT16, DT_UINT16, DT_INT32, DT_FLOAT16,
       DT_FLOAT64, DT_COUNT };
#define DT_BYTES (-1)

/* The module's state (state.c): its spec, NumPy's functions and dtypes
 * (int64, float32, uint8), and its types. */
typedef struct fcpy_state {
    const fcpy_spec *spec;
    PyObject *zeros, *asarray, *ascontiguous, *dtype[DT_COUNT];
    PyObject *block_type, *bytes_type, *reader_type, *ragged_type, *sparse_type;
    PyObject *segmenter_type, *arrow_batch_type;
    PyObject *error;
} fcpy_state;
extern fcpy_state fcpy_g;


/* A type's slot: a function, or data (docs, method tables).  PyType_Slot
 * holds both as void *, which ISO C does not convert a function pointer
 * to; fcpy_make_type does it through a union. */
typedef void (*any_fn)(void);
#define FN(f) ((any_fn)(f))
typedef struct fslot {
    int id;
    any_fn fn;
    void *data;
} fslot;
PyObject *fcpy_make_type(const char *name, size_t size, unsigned flags, const fslot *slots);

/* ------------------------------------------------------------ arrays.c */

/* Memory NumPy arrays are views of: freed when the last of them goes. */
typedef struct {
    PyObject_HEAD
    void *mem;
    size_t size;
    int batch; /* 1: a batch's block, the spare when freed (fcpy_block_give);
                  2: a packed column, given back by fcpy_pack_give (a spare of cap
                  bytes, or freed when cap is 0) */
    size_t cap;
} block_object;


/* Bytes values of a column, packed: offsets [n + 1] (int64), then the
 * bytes; made without the GIL (fcpy_pack_bytes), wrapped with it. */
typedef struct packed {
    void *mem;
    size_t size, n;
    size_t cap; /* mem's size when it may be a spare (fcpy_pack_give), else 0 */
} packed;

/* featc's Bytes: a column of bytes values, flat, with a shape. */
typedef struct {
    PyObject_HEAD
    PyObject *owner;      /* the block holding offsets and data */
    const int64_t *offsets;
    const unsigned char *data;
    Py_ssize_t n;
    PyObject *shape;      /* tuple */
} bytes_object;

/* A parsed batch: its block, columns, and packed bytes per column. */
typedef struct batch_out {
    PyObject *owner;  /* the block object */
    const fc_column *cols;
    packed *packs;    /* per column; mem NULL when it holds no bytes */
    int ragged;       /* VarLen columns as Ragged, else Sparse */
    int single;       /* one record (parse()): no batch dimension */
} batch_out;

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
    fc_column *layout;         /* cols as bound to a block, and where each buffer */
    size_t *offs;              /* starts in it (SIZE_MAX: none): bound once */
    int have_layout;
    int arrow;                 /* read(format='arrow'), 2 'arrow-large': exported into arr, not packed
                                  (in the run, while the records are there) */
    struct ArrowArray arr;
    const unsigned char *lo, *hi; /* memory readable from lo to hi that holds records (a
                                     slot's copies), or NULL: fcpy_pack_bytes */
} batch_work;

void *fcpy_alloc16(size_t size);
/* A batch block of size bytes: the spare one when it has that size, else
 * new; and the way back (the spare, or freed). */
void *fcpy_block_take(size_t size);
void fcpy_block_give(void *mem, size_t size);
/* A big buffer (fc_huge_alloc's) of at least *cap bytes, *cap set to its
 * size, a spare one if there is; given back to be a spare or freed. */
void *fcpy_big_take(size_t *cap);
void fcpy_big_give(void *mem, size_t cap);
/* Memory for a packed column of size bytes; *cap its size when it may be
 * given back as a spare (fcpy_pack_give), else 0 (freed). */
void *fcpy_pack_take(size_t size, size_t *cap);
void fcpy_pack_give(void *mem, size_t cap);
/* A block owning mem (freed with it, or the spare when batch is set);
 * NULL with mem freed on failure. */
PyObject *fcpy_block_new(void *mem, size_t size, int batch);
PyObject *fcpy_block_type_new(void);
PyObject *fcpy_bytes_type_new(void);
PyObject *fcpy_shape_tuple(const int64_t *shape, unsigned rank);
PyObject *fcpy_shape_array(const int64_t *shape, unsigned rank);
/* NumPy's C API, for arrays.c (at module init; -1 with the error set). */
int fcpy_arrays_init(void);
/* Bytes per element of a DT_ (0 for DT_BYTES). */
size_t fcpy_dt_size(int dt);
PyObject *fcpy_view_array(PyObject *owner, const void *ptr, int dt, size_t n,
                          const int64_t *shape, unsigned rank);
/* A value of 16 bytes or fewer that lies in [lo, hi) with 16 bytes to
 * read before hi is copied as 16 bytes (lo NULL: none is). */
int fcpy_pack_bytes(packed *p, const fc_bytes *v, size_t n, const unsigned char *lo,
                    const unsigned char *hi);
PyObject *fcpy_bytes_from_packed(packed *p, const int64_t *shape, unsigned rank);
/* The kind letter of an array's dtype ('i', 'u', 'f', 'S', ...); -1 with
 * the exception set. */
int fcpy_dtype_kind(PyObject *arr);

/* ------------------------------------------------------------ batch.c */

int fcpy_set_attr(PyObject *exc, const char *name, PyObject *value);
void fcpy_raise_error(const fc_error *e, const char *path, uint64_t record, uint64_t offset,
                      int with_record);
int fcpy_dtype_of(fc_type t);
/* The DT_ of an `as` type (fc_as). */
int fcpy_dtype_of_as(int as);
PyObject *fcpy_key_str(const char *key, size_t n);
/* The str of key + suffix (suffix NULL: none), cached by the two
 * pointers (the spec's key, a constant suffix); a new reference. */
PyObject *fcpy_column_key(const char *key, size_t key_len, const char *suffix);
size_t fcpy_ncols_of(const fcpy_message *m);
int fcpy_batch_work_init(batch_work *w, const fcpy_message *m, size_t cap, unsigned forms);
fc_status fcpy_batch_run(batch_work *w, const fc_bytes *records, size_t n, fc_error *err);
PyObject *fcpy_batch_wrap(batch_work *w, int ragged, int single);
void fcpy_batch_release(batch_work *w);
void fcpy_batch_work_free(batch_work *w);
PyObject *fcpy_parse(PyObject *module, PyObject *args, PyObject *kw);

/* ------------------------------------------------------------ shuffle.c */

/* A shuffle buffer of cap records (read(shuffle=N)): put copies a record
 * in (while not full; -1: out of memory), draw takes one out uniformly (n
 * > 0), its data valid until the next draw. */
#define MAX_SHUFFLE ((size_t)1 << 30)
typedef struct fcpy_shuffle fcpy_shuffle;
fcpy_shuffle *fcpy_shuffle_new(size_t cap, uint64_t seed);
void fcpy_shuffle_free(fcpy_shuffle *sh);
int fcpy_shuffle_full(const fcpy_shuffle *sh);
size_t fcpy_shuffle_count(const fcpy_shuffle *sh);
int fcpy_shuffle_put(fcpy_shuffle *sh, const fc_record *rec, Py_ssize_t src);
void fcpy_shuffle_draw(fcpy_shuffle *sh, fc_record *rec, Py_ssize_t *src);

/* ------------------------------------------------------------ wait.c */

/* A thread's wait for another (reader.c, prefetch.c): the waiter, with mu
 * held, calls fcpy_wait in its loop over its condition; whoever changes
 * that condition does it under mu, bumps seq (fcpy_wake_bump) and signals
 * cv.  With can_spin (fcpy_wait_can_spin), fcpy_wait polls seq without
 * the mutex for a few tens of microseconds before it sleeps on cv. */
void fcpy_wait(pthread_mutex_t *mu, pthread_cond_t *cv, const unsigned *seq, int can_spin);
void fcpy_wake_bump(unsigned *seq);
int fcpy_wait_can_spin(size_t threads);

/* ------------------------------------------------------------ prefetch.c */

/* Compressed paths inflated ahead by threads (read(threads=N)): started
 * for N >= 2 and two or more paths (NULL otherwise, or when it could not
 * start: the reader then reads every source itself).  For source k the
 * reader calls claim: 1, read its records with next (FC_OK, FC_END, or
 * the source's error in err, as fc_input_next), then release; 0, open
 * and read it itself (not compressed, failed to open, or not started). */
typedef struct fcpy_prefetch fcpy_prefetch;
fcpy_prefetch *fcpy_prefetch_start(PyObject *sources, PyObject *names, const uint64_t *split_n,
                                   const fc_input_options *opt, unsigned nthreads);
void fcpy_prefetch_stop(fcpy_prefetch *p);
int fcpy_prefetch_claim(fcpy_prefetch *p, size_t k);
fc_status fcpy_prefetch_next(fcpy_prefetch *p, size_t k, fc_record *rec, fc_error *err);
void fcpy_prefetch_release(fcpy_prefetch *p, size_t k);

/* ------------------------------------------------------------ state.c: options, sources */

const fcpy_message *fcpy_find_message(PyObject *name);
int fcpy_word_option(PyObject *s, const char *what, const char *const *words, int *out);
int fcpy_compression_option(PyObject *s, int with_auto, fc_compression *out);
int fcpy_crc_option(PyObject *s, fc_crc_policy *out);
int fcpy_sync_option(PyObject *s, fc_sync_method *out);
int fcpy_size_option(PyObject *v, const char *what, Py_ssize_t lo, Py_ssize_t hi, size_t *out);
int fcpy_pair_option(PyObject *v, const char *what, uint64_t *a, uint64_t *b);
/* A source read() opens by name: neither bytes-like nor a file object. */
int fcpy_source_is_path(PyObject *s);

/* ------------------------------------------------------------ the rest */

PyObject *fcpy_read(PyObject *module, PyObject *args, PyObject *kw);
PyObject *fcpy_reader_type_new(void);
PyObject *fcpy_write(PyObject *module, PyObject *args, PyObject *kw);
PyObject *fcpy_segments(PyObject *module, PyObject *args, PyObject *kw);

/* ------------------------------------------------------------ arrow.c */

/* featc.ArrowBatch over the Arrow arrays a run of w exported (w->arr,
 * moved into it). */
PyObject *fcpy_arrow_batch_type_new(void);
PyObject *fcpy_arrow_batch(batch_work *w);
/* A reader's __arrow_c_stream__: a capsule whose stream pulls its batches. */
PyObject *fcpy_arrow_stream(PyObject *reader, const fcpy_message *m, unsigned flags,
                            PyObject *args, PyObject *kw);
PyObject *fcpy_segmenter_type_new(void);
/* The struct array a featc.ArrowBatch holds (b keeps it alive), or NULL
 * when b is none. */
const struct ArrowArray *fcpy_arrow_batch_array(PyObject *b);

/* ------------------------------------------------------------ parquet.c */

/* write_parquet(dest, data, codec=, row_group_size=, page_size=, **read
 * options): the rows written. */
PyObject *fcpy_write_parquet(PyObject *module, PyObject *args, PyObject *kw);

/* ------------------------------------------------------------ records.c */

/* What an item given to write() is, read from its values' ranks against
 * the spec: a record, a batch, or either (no feature says); -1 with an
 * exception when its features disagree. */
enum { FCPY_EITHER, FCPY_RECORD, FCPY_BATCH };
/* A Sparse (featc's, or any 3-tuple with dense_shape) or a Ragged (any
 * 2-tuple with row_splits), as write() takes them. */
int fcpy_is_sparse(PyObject *v);
int fcpy_is_ragged(PyObject *v);
int fcpy_record_form(const fcpy_message *m, PyObject *item);
/* Each key of item's dicts one write() reads (a feature, a list, a
 * fixed-frame list's length, a hashed feature's KEY/buckets, /one_hot,
 * /multi_hot); 0, or -1 with a ValueError naming the message's keys. */
int fcpy_check_keys(const fcpy_message *m, PyObject *item);
/* A record as a batch of one, in the layouts write() takes. */
PyObject *fcpy_record_batch(const fcpy_message *m, PyObject *item);
PyObject *fcpy_schema(const fcpy_spec *spec);

#endif /* FEATC_PY_EXT_H */
