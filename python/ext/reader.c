/* read(): featc.Reader, an iterator over the batches of TFRecord sources
 * (paths, bytes-like objects, file objects), with parse threads. */
#include "ext.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

/* ------------------------------------------------------------ the reader */

/* A batch on its way: the records gathered for it (views into the open
 * source, or copies in data), then its parse.  The reader keeps a ring of
 * them: one when it parses on the caller's thread (threads=1); 2 x threads
 * when worker threads parse while the caller's thread reads the records of
 * the next batches.  Either way the batches are the same, in the same
 * order: records are framed (and their CRCs checked) in order on the
 * caller's thread, and only whole batches are handed to the workers. */
enum { SLOT_FREE, SLOT_QUEUED, SLOT_PARSING, SLOT_PARSED };

typedef struct slot {
    int state;            /* written under the reader's mutex when it has threads */
    size_t n, first_here; /* records; the first read from the open source */
    fc_bytes *views;
    size_t *at;           /* offset in data of a copied record; SIZE_MAX: in place */
    uint64_t *index, *offset;
    Py_ssize_t *src;
    unsigned char *data;
    size_t used, cap;
    int big;              /* data is a big buffer (fcpy_big_take), not malloc's */
    size_t bsize;         /* the records a batch holds */
    int moved;            /* data moved since views of copies into it were set */
    Py_ssize_t live;      /* the source its in-place records are in (it stays open), or -1 */
    batch_work w;
    fc_status status;     /* the parse's */
    fc_error err;
    int input_failed;     /* the input failed after its records: raised after them */
    fc_error input_err;
    Py_ssize_t input_src;
} slot;

typedef struct {
    PyObject_HEAD
    const fcpy_message *m;
    PyObject *sources;    /* tuple */
    PyObject *names;      /* tuple of bytes: each source's name in messages */
    PyObject *held;       /* what the open source reads (a file object's buffer) */
    PyObject *pull_src;   /* a file object without a buffer: read in pieces (pull_read) */
    PyObject *pull_type, *pull_value, *pull_tb; /* the exception its read() raised */
    PyObject *index_path; /* bytes, or NULL */
    PyObject *part_index; /* the open source's featc_index (name, text), or NULL */
    Py_ssize_t next;      /* the next source to open */
    Py_ssize_t cur;       /* the open one */
    int open;
    int in_place;         /* its records stay valid until it closes */
    uint64_t released;    /* a mapped file's bytes before this are given back */
    int have_view;
    Py_buffer view;
    fc_input in;
    fc_input_options opt;
    size_t bsize;
    int ragged;
    int raw;              /* raw=True: batches of records (bytes), not parsed */
    int arrow;            /* format='arrow' (2: 'arrow-large'): featc.ArrowBatch */
    int done;             /* every source has been read */
    int blocked;          /* a source failed to open after records: raised once they are out */
    /* the ring: slots[head % depth] is handed out next; queued slots were
     * gathered (head <= taken <= queued; taken: by the threads) */
    slot *slots;
    size_t depth;
    unsigned long long head, queued, taken;
    /* threads=N: N - 1 worker threads, and the caller's thread parses
     * while it waits for one */
    unsigned started;
    pthread_t *threads;
    int have_sync, stop, waiting;
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* the workers': a slot was queued, or stop */
    pthread_cond_t done_cv; /* the caller's (waiting): a slot was parsed */
    unsigned work_seq, done_seq; /* bumped with each signal of work_cv, done_cv */
    /* threads gathering (gather_and_parse): while the open source needs
     * neither the GIL nor the caller's bookkeeping (see reader_open_source),
     * each thread, the caller's included, frames the next batch's records
     * itself and parses them: the records are written and read on one core.
     * One gathers at a time (gathering); a gather that meets the end of the
     * source or an error stops them (stalled, with its status) and the
     * caller's reader_fill goes on from there, with the GIL.  Under mu. */
    int wgather_ok, gathering, stalled;
    fc_status stall_status;
    int spin;             /* waits spin first (wait.c): under the mutex */
    int can_spin;         /* no more threads than CPUs (fcpy_wait_can_spin) */
    pid_t pid;
    unsigned long forks; /* forks_seen when the threads started */
    unsigned long long batches, records;
    /* threads=N over several paths: compressed ones inflated ahead;
     * from_pre: the open source's records come from there */
    fcpy_prefetch *pre;
    int from_pre;
    /* splits=: source k's split (split_i[k], split_n[k]), none when
     * split_n[k] is 0; shuffle=: the shuffle buffer; skip=: records of the
     * stream still to pass over */
    uint64_t *split_i, *split_n;
    fcpy_shuffle *shuf;
    uint64_t skip;
} reader_object;

static void slot_parse(slot *t)
{
    fc_error_clear(&t->err);
    t->w.lo = t->data; /* (records copied here; in-place ones elsewhere) */
    t->w.hi = t->data != NULL ? t->data + t->cap : NULL;
    t->status = t->n > 0 && t->w.cols != NULL ? fcpy_batch_run(&t->w, t->views, t->n, &t->err)
                                              : FC_OK;
}

/* raw=True: the slot's records as a list of bytes. */
static PyObject *slot_records(const slot *t)
{
    PyObject *out = PyList_New((Py_ssize_t)t->n);
    size_t k;
    for (k = 0; out != NULL && k < t->n; k++) {
        PyObject *b = PyBytes_FromStringAndSize((const char *)t->views[k].data,
                                                (Py_ssize_t)t->views[k].size);
        if (b == NULL)
            Py_CLEAR(out);
        else
            PyList_SetItem(out, (Py_ssize_t)k, b);
    }
    return out;
}

/* Parses the next queued slot; called and returns with the mutex held. */
static void take_and_parse(reader_object *r)
{
    slot *t = &r->slots[r->taken++ % r->depth];
    t->state = SLOT_PARSING;
    pthread_mutex_unlock(&r->mu);
    slot_parse(t);
    pthread_mutex_lock(&r->mu);
    t->state = SLOT_PARSED;
    fcpy_wake_bump(&r->done_seq);
    if (r->waiting)
        pthread_cond_signal(&r->done_cv);
}

static fc_status reader_gather(reader_object *r, slot *t);
static void fix_views(slot *t);

/* Whether a thread may gather the next batch now (mu held): threads gather,
 * nobody else is, nothing queued waits for a parse (batches are taken in
 * order), and a slot is free. */
static int can_gather(const reader_object *r)
{
    return r->wgather_ok && !r->gathering && !r->stalled && !r->stop &&
           r->taken == r->queued && r->queued - r->head < r->depth;
}

/* Gathers the next batch into its slot and parses it, on this thread; called
 * and returns with the mutex held (can_gather true).  A gather that stops
 * short (the source's end, or an error) leaves its records in the slot,
 * unqueued, for reader_fill. */
static void gather_and_parse(reader_object *r)
{
    slot *t = &r->slots[r->queued % r->depth];
    fc_status s;
    r->gathering = 1;
    pthread_mutex_unlock(&r->mu);
    s = reader_gather(r, t);
    if (s == FC_OK)
        fix_views(t);
    pthread_mutex_lock(&r->mu);
    r->gathering = 0;
    /* (the input is free: whoever waits may gather the next batch) */
    fcpy_wake_bump(&r->work_seq);
    pthread_cond_signal(&r->work_cv);
    fcpy_wake_bump(&r->done_seq);
    if (s != FC_OK) {
        r->stalled = 1;
        r->stall_status = s;
        r->wgather_ok = 0;
        pthread_cond_signal(&r->done_cv);
        return;
    }
    if (r->waiting)
        pthread_cond_signal(&r->done_cv);
    t->state = SLOT_QUEUED;
    r->queued++;
    take_and_parse(r); /* t: nothing was queued before it (can_gather) */
}

/* The caller's thread, waiting for a slot (with the mutex held, without
 * the GIL): it parses a queued slot if there is one, or gathers and parses
 * the next batch if it may, else sleeps until another thread moved. */
static void work_or_wait(reader_object *r)
{
    if (r->taken < r->queued) {
        take_and_parse(r);
        return;
    }
    if (can_gather(r)) {
        gather_and_parse(r);
        return;
    }
    r->waiting = 1;
    fcpy_wait(&r->mu, &r->done_cv, &r->done_seq, r->spin);
    r->waiting = 0;
}

/* A worker thread: parses the queued slots in turn, or gathers and parses
 * the next batch. */
static void *parse_main(void *arg)
{
    reader_object *r = (reader_object *)arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->stop && r->taken == r->queued && !can_gather(r))
            fcpy_wait(&r->mu, &r->work_cv, &r->work_seq, r->spin);
        if (r->stop)
            break;
        if (r->taken < r->queued)
            take_and_parse(r);
        else
            gather_and_parse(r);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

/* Forks of this process, counted in the child by a pthread_atfork handler,
 * so that reader_next tells a child's copy of a reader without a getpid
 * system call a batch (glibc does not cache the pid: 1-2 us each on this
 * project's test VM, a few percent of a two-thread read); getpid where the
 * handler could not be registered. */
static unsigned long forks_seen;
static int fork_watch_ok;
static pthread_once_t fork_watch_once = PTHREAD_ONCE_INIT;

static void count_fork(void)
{
    forks_seen++;
}

static void fork_watch(void)
{
    fork_watch_ok = pthread_atfork(NULL, NULL, count_fork) == 0;
}

/* A copy of a reader with threads in a child process (fork): its threads
 * are the parent's, its mutexes in whatever state they were; it is only
 * dropped, its threads and read-ahead abandoned (their memory leaks in the
 * child), never joined or locked. */
static int forked(const reader_object *r)
{
    return r->have_sync && (fork_watch_ok ? r->forks != forks_seen : r->pid != getpid());
}

/* Stops and joins the threads; queued slots not yet taken stay unparsed. */
static void reader_stop_threads(reader_object *r)
{
    unsigned i;
    if (!r->have_sync)
        return;
    if (forked(r)) {
        r->started = 0;
        return;
    }
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    r->wgather_ok = 0;
    fcpy_wake_bump(&r->work_seq);
    pthread_cond_broadcast(&r->work_cv);
    pthread_mutex_unlock(&r->mu);
    Py_BEGIN_ALLOW_THREADS
    for (i = 0; i < r->started; i++)
        pthread_join(r->threads[i], NULL);
    Py_END_ALLOW_THREADS
    r->started = 0;
}

/* Until no queued slot reads the open source in place and no thread
 * gathers from it (it is about to close); without the GIL. */
static void wait_live(reader_object *r)
{
    size_t i;
    if (!r->have_sync || forked(r))
        return; /* the one slot is the one being gathered; or a child's copy */
    pthread_mutex_lock(&r->mu);
    r->wgather_ok = 0; /* (and none is gathering from it: the input closes) */
    for (;;) {
        for (i = 0; i < r->depth; i++) {
            const slot *t = &r->slots[i];
            if (t->live == r->cur && (t->state == SLOT_QUEUED || t->state == SLOT_PARSING))
                break;
        }
        if ((i == r->depth || r->stop) && !r->gathering)
            break;
        work_or_wait(r);
    }
    pthread_mutex_unlock(&r->mu);
}

static void reader_close_source(reader_object *r)
{
    size_t i;
    if (!r->open)
        return;
    if (r->from_pre) {
        Py_BEGIN_ALLOW_THREADS
        if (!forked(r))
            fcpy_prefetch_release(r->pre, (size_t)r->cur);
        Py_END_ALLOW_THREADS
        r->from_pre = 0;
        r->open = 0;
        return;
    }
    Py_BEGIN_ALLOW_THREADS
    wait_live(r);
    fc_input_close(&r->in);
    Py_END_ALLOW_THREADS
    for (i = 0; i < r->depth; i++)
        if (r->slots[i].live == r->cur)
            r->slots[i].live = -1;
    if (r->have_view)
        PyBuffer_Release(&r->view);
    r->have_view = 0;
    Py_CLEAR(r->held);
    Py_CLEAR(r->pull_src);
    Py_CLEAR(r->part_index);
    r->open = 0;
}

/* The pull source of a file object without a buffer (fc_input_open_pull):
 * read(n), with the GIL taken for the call, so that a file object of any
 * size is read in pieces of the reader's buffer.  An exception read()
 * raises is kept and raised in place of the read's error. */
static fc_status pull_read(void *ctx, void *buf, size_t n, size_t *got, fc_error *err)
{
    reader_object *r = (reader_object *)ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *b = PyObject_CallMethod(r->pull_src, "read", "n",
                                      (Py_ssize_t)(n > (size_t)PY_SSIZE_T_MAX ? PY_SSIZE_T_MAX
                                                                             : n));
    fc_status st = FC_OK;
    *got = 0;
    if (b != NULL && !PyBytes_Check(b)) {
        PyErr_Format(PyExc_TypeError, "read() gave %S, not bytes (open the file in binary mode)",
                     (PyObject *)Py_TYPE(b));
        Py_CLEAR(b);
    }
    if (b != NULL && (size_t)PyBytes_Size(b) > n) {
        PyErr_Format(PyExc_ValueError, "read(%zu) gave %zd bytes", n, PyBytes_Size(b));
        Py_CLEAR(b);
    }
    if (b == NULL) {
        fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "read() of the file object failed");
        if (r->pull_type == NULL)
            PyErr_Fetch(&r->pull_type, &r->pull_value, &r->pull_tb);
        else
            PyErr_Clear();
        st = FC_ERR_IO;
    } else {
        *got = (size_t)PyBytes_Size(b);
        if (*got > 0)
            memcpy(buf, PyBytes_AsString(b), *got);
        Py_DECREF(b);
    }
    PyGILState_Release(g);
    return st;
}

/* Its seek function (fc_input_open_pull_seekable), for a part of a
 * seekable file object: seek(offset), with the GIL taken.  An exception
 * seek() raises is kept, as read()'s are. */
static fc_status pull_seek(void *ctx, uint64_t offset, fc_error *err)
{
    reader_object *r = (reader_object *)ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    PyObject *v = PyObject_CallMethod(r->pull_src, "seek", "K", (unsigned long long)offset);
    fc_status st = FC_OK;
    if (v == NULL) {
        fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, offset);
        fc_msg_str(&m, "seek() of the file object failed");
        if (r->pull_type == NULL)
            PyErr_Fetch(&r->pull_type, &r->pull_value, &r->pull_tb);
        else
            PyErr_Clear();
        st = FC_ERR_IO;
    }
    Py_XDECREF(v);
    PyGILState_Release(g);
    return st;
}

/* A part of file object s (read in pieces): its size (seek(0, 2), then
 * back to 0) and its index, from read()'s index= or else the object's
 * featc_index attribute, (name, text) (featc._remote sets it for a URL
 * with an index or member list beside it).  0, or -1 with an exception. */
static int pull_part_setup(reader_object *r, PyObject *s, fc_input_options *o, uint64_t *size)
{
    PyObject *v = PyObject_CallMethod(s, "seekable", NULL);
    int ok = v != NULL && PyObject_IsTrue(v) == 1;
    Py_XDECREF(v);
    if (!ok) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError,
                         "%s: a part (split=, splits=, byte_range=) of a file object needs a "
                         "seekable one (or a path, or its bytes): this one is read in order",
                         PyBytes_AsString(PyTuple_GetItem(r->names, r->cur)));
        return -1;
    }
    v = PyObject_CallMethod(s, "seek", "ii", 0, 2);
    if (v == NULL)
        return -1;
    *size = PyLong_AsUnsignedLongLong(v);
    Py_DECREF(v);
    if (PyErr_Occurred())
        return -1;
    v = PyObject_CallMethod(s, "seek", "i", 0);
    if (v == NULL)
        return -1;
    Py_DECREF(v);
    if (o->index_path == NULL && PyObject_HasAttrString(s, "featc_index")) {
        PyObject *ix = PyObject_GetAttrString(s, "featc_index");
        const char *name;
        char *text;
        Py_ssize_t len;
        if (ix == NULL)
            return -1;
        if (ix == Py_None) {
            Py_DECREF(ix);
            return 0;
        }
        if (!PyArg_ParseTuple(ix, "sy#", &name, &text, &len)) {
            Py_DECREF(ix);
            return -1;
        }
        Py_XDECREF(r->part_index);
        r->part_index = ix; /* (keeps name and text alive while the source is open) */
        o->index_path = name;
        o->index_text = text;
        o->index_len = (size_t)len;
    }
    return 0;
}

/* Raises the error of a source that failed: the exception its read()
 * raised, when that is what failed it. */
static void raise_input_error(reader_object *r, const fc_error *e, Py_ssize_t src)
{
    if (r->pull_type != NULL && e->status == FC_ERR_IO) {
        PyErr_Restore(r->pull_type, r->pull_value, r->pull_tb);
        r->pull_type = r->pull_value = r->pull_tb = NULL;
        return;
    }
    if (e->status == FC_ERR_IO && e->sys_errno != 0 && r->open && r->in.index_path != NULL &&
        (strncmp(e->message, "index ", 6) == 0 || strncmp(e->message, "member index ", 13) == 0)) {
        /* the index file failed to open: name it, not the data */
        errno = e->sys_errno;
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, r->in.index_path);
        return;
    }
    fcpy_raise_error(e, PyBytes_AsString(PyTuple_GetItem(r->names, src)), e->record, e->offset, 0);
}

static const char *source_name(reader_object *r, Py_ssize_t k)
{
    return PyBytes_AsString(PyTuple_GetItem(r->names, k));
}

/* Opens sources[next] for the records of slot t: a path, a bytes-like
 * object, or a binary file object (its buffer when it has one, as BytesIO
 * does, else what read() gives).  0, -1 with an exception set, or 1 when
 * the threads gather from it: then they may have filled t, queued it and
 * gone on, or stopped short, by the time this returns. */
static int reader_open_source(reader_object *r, slot *t)
{
    PyObject *s = PyTuple_GetItem(r->sources, r->next);
    const char *name = source_name(r, r->next);
    fc_status st = FC_OK;
    fc_input_options o = r->opt;
    if (r->split_n != NULL && r->split_n[r->next] != 0) {
        o.part = FC_PART_SPLIT;
        o.part_a = r->split_i[r->next];
        o.part_b = r->split_n[r->next];
    }
    r->cur = r->next++;
    t->first_here = t->n;
    r->in_place = 0;
    r->released = 0;
    if (!PyObject_CheckBuffer(s) && !PyObject_HasAttrString(s, "getbuffer") &&
        PyObject_HasAttrString(s, "read")) {
        /* read in pieces: the memory is the largest record's, not the file's
         * (a part: placed by its index, which the reader seeks to) */
        if (o.part != FC_PART_ALL) {
            uint64_t size = 0;
            if (pull_part_setup(r, s, &o, &size) != 0)
                return -1;
            Py_INCREF(s);
            r->pull_src = s;
            st = fc_input_open_pull_seekable(&r->in, name, pull_read, pull_seek, r, size, &o);
        } else {
            Py_INCREF(s);
            r->pull_src = s;
            st = fc_input_open_pull(&r->in, name, pull_read, r, &o);
        }
    } else if (!PyObject_CheckBuffer(s) && PyObject_HasAttrString(s, "getbuffer")) {
        PyObject *b = PyObject_CallMethod(s, "getbuffer", NULL);
        if (b == NULL)
            return -1;
        r->held = b;
        s = b;
    }
    if (r->pull_src != NULL) {
        /* opened above */
    } else if (r->held != NULL || PyObject_CheckBuffer(s)) {
        if (PyObject_GetBuffer(s, &r->view, PyBUF_SIMPLE) != 0) {
            Py_CLEAR(r->held);
            return -1;
        }
        r->have_view = 1;
        Py_BEGIN_ALLOW_THREADS
        st = fc_input_open_mem(&r->in, name, r->view.buf, (size_t)r->view.len, &o);
        Py_END_ALLOW_THREADS
    } else { /* a path (fcpy_source_is_path) */
        int ahead;
        Py_BEGIN_ALLOW_THREADS
        ahead = fcpy_prefetch_claim(r->pre, (size_t)r->cur);
        if (!ahead)
            st = fc_input_open(&r->in, name, &o);
        Py_END_ALLOW_THREADS
        if (ahead) {
            /* inflated by a thread: its records copied from there */
            r->open = 1;
            r->from_pre = 1;
            return 0;
        }
    }
    r->open = 1;
    if (r->have_sync) {
        /* spinning only while no inflater thread needs a core */
        pthread_mutex_lock(&r->mu);
        r->spin = r->can_spin && r->pre == NULL && st == FC_OK && r->in.ahead == NULL;
        pthread_mutex_unlock(&r->mu);
    }
    if (st != FC_OK) {
        raise_input_error(r, &r->in.err, r->cur);
        reader_close_source(r);
        return -1;
    }
    /* (raw batches are made from the records after their slot was
     * "parsed", when the source may be closed: copies) */
    r->in_place = r->in.data != NULL && fc_reader_compression(&r->in.reader) == FC_COMPRESSION_NONE &&
                  r->shuf == NULL && !r->raw;
    if (r->have_sync && !r->in_place && r->pull_src == NULL && r->shuf == NULL && r->skip == 0) {
        /* the threads gather from here (a file object's read() would need
         * the GIL; records in place, a shuffle or a skip, reader_fill's
         * bookkeeping) */
        pthread_mutex_lock(&r->mu);
        r->wgather_ok = 1;
        fcpy_wake_bump(&r->work_seq);
        pthread_cond_broadcast(&r->work_cv);
        pthread_mutex_unlock(&r->mu);
        return 1;
    }
    return 0;
}

/* Whether the threads gather now: then the ring's queued count is theirs
 * (under the mutex), and reader_fill leaves the open source to them. */
static int gatherers_on(reader_object *r)
{
    int on;
    if (!r->have_sync)
        return 0;
    pthread_mutex_lock(&r->mu);
    on = r->wgather_ok && !r->stop;
    pthread_mutex_unlock(&r->mu);
    return on;
}

/* What reader_next finds in the ring, all read at once (under the mutex):
 * a gather of the threads that stopped short, waiting for reader_fill; no
 * batch queued and none to come from the threads; or a batch to hand out
 * or to wait for. */
enum { RING_BATCH, RING_EMPTY, RING_STALLED };

static int ring_state(reader_object *r)
{
    int st;
    if (!r->have_sync)
        return r->head == r->queued ? RING_EMPTY : RING_BATCH;
    pthread_mutex_lock(&r->mu);
    st = r->stalled                                                   ? RING_STALLED
         : (!r->wgather_ok || r->stop) && r->head == r->queued ? RING_EMPTY
                                                                      : RING_BATCH;
    pthread_mutex_unlock(&r->mu);
    return st;
}

/* A gather of the threads that stopped short: its status, taken once. */
static int take_stall(reader_object *r, fc_status *s)
{
    int had;
    if (!r->have_sync)
        return 0;
    pthread_mutex_lock(&r->mu);
    had = r->stalled;
    *s = r->stall_status;
    r->stalled = 0;
    pthread_mutex_unlock(&r->mu);
    return had;
}

/* Copied records past this many bytes a slot go into a big buffer (huge
 * pages where there are: fc_input.h): a batch of large records (wide's
 * 256 are 1.75 MB) in malloc's pages faulted in 400 of them in each slot
 * of each new reader, which with threads (2N slots) cost as much as a
 * short read's parse.  Big buffers are taken from and given back to the
 * module's spares (fcpy_big_take), so that the next reader's slots find
 * their pages there. */
#define SLOT_BIG ((size_t)1 << 20)
/* A batch's first record asks room for a batch of records of its size, at
 * most this (a hint: the batch grows past it as before). */
#define SLOT_HINT ((size_t)64 << 20)

/* Room for k more bytes of copied records in t. */
static int reserve(slot *t, size_t k)
{
    size_t cap;
    unsigned char *d;
    if (k <= t->cap - t->used)
        return 0;
    if (k > SIZE_MAX / 2 - t->used)
        return -1;
    cap = t->cap * 2 > t->used + k ? t->cap * 2 : t->used + k;
    if (t->used == 0 && t->bsize > 0) {
        /* (not doubled up to a batch's size from its first record's) */
        size_t hint = k < SLOT_HINT / t->bsize ? k * t->bsize : SLOT_HINT;
        if (hint > cap)
            cap = hint;
    }
    if (t->big) {
        d = (unsigned char *)fc_huge_grow(t->data, t->cap, &cap);
    } else if (cap >= SLOT_BIG) {
        d = (unsigned char *)fcpy_big_take(&cap);
        if (d != NULL && t->used > 0)
            memcpy(d, t->data, t->used);
        if (d != NULL) {
            free(t->data);
            t->big = 1;
        }
    } else {
        d = (unsigned char *)realloc(t->data, cap > 0 ? cap : 1);
    }
    if (d == NULL)
        return -1;
    t->moved |= d != t->data;
    t->data = d;
    t->cap = cap;
    return 0;
}

/* Records of t that are views into the open source become copies (before
 * it closes). */
static int slot_materialize(slot *t)
{
    size_t k;
    for (k = t->first_here; k < t->n; k++) {
        if (t->at[k] != SIZE_MAX)
            continue;
        if (reserve(t, t->views[k].size) != 0)
            return -1;
        if (t->views[k].size > 0)
            memcpy(t->data + t->used, t->views[k].data, t->views[k].size);
        t->at[k] = t->used;
        t->views[k].data = t->data + t->used;
        t->used += t->views[k].size;
    }
    t->live = -1;
    return 0;
}

/* Gives back the pages of a mapped file that every batch has been parsed
 * past: they are the file's, not the process's, but count in its resident
 * size while mapped (a 1 GB file read to its end would show 1 GB).  Never
 * a caller's buffer. */
static void release_read(reader_object *r)
{
    long page = sysconf(_SC_PAGESIZE);
    uint64_t upto;
    size_t i;
    if (!r->open || !r->in_place || r->in.map.data == NULL || page <= 0)
        return;
    upto = fc_reader_offset(&r->in.reader);
    for (i = 0; i < r->depth; i++) {
        const slot *t = &r->slots[i];
        if (t->live == r->cur && t->first_here < t->n && t->offset[t->first_here] < upto)
            upto = t->offset[t->first_here];
    }
    upto = upto / (uint64_t)page * (uint64_t)page;
    if (upto >= r->released + ((uint64_t)16 << 20) && upto <= r->in.size) {
        (void)madvise((void *)(uintptr_t)(r->in.map.data + r->released),
                      (size_t)(upto - r->released), MADV_DONTNEED);
        r->released = upto;
    }
}

/* Reads records of the open source into t until it is full (FC_OK), the
 * source ends (FC_END) or fails; without the GIL. */
static fc_status reader_gather(reader_object *r, slot *t)
{
    fc_record rec;
    fc_status s = FC_OK;
    size_t k = t->n;
    /* (the slot's arrays, count and copy's room in locals: the stores
     * through them could otherwise alias them, and each record reload
     * them) */
    fc_bytes *views = t->views;
    size_t *at = t->at;
    uint64_t *index = t->index, *offset = t->offset;
    Py_ssize_t *src = t->src, cur = r->cur;
    unsigned char *data = t->data;
    size_t used = t->used, cap = t->cap, bsize = r->bsize;
    int in_place = r->in_place, from_pre = r->from_pre;
    fc_input *in = &r->in;
    while (k < bsize) {
        s = from_pre ? fcpy_prefetch_next(r->pre, (size_t)cur, &rec, &in->err)
                     : fc_input_next(in, &rec);
        if (s != FC_OK)
            break;
        if (in_place) {
            views[k].data = rec.data;
            at[k] = SIZE_MAX;
            t->live = cur;
        } else {
            if (rec.length > cap - used) {
                t->used = used;
                if (reserve(t, rec.length) != 0) {
                    fc_msg m = fc_error_begin(&r->in.err, FC_ERR_NO_MEMORY, rec.index,
                                              rec.offset);
                    fc_msg_str(&m, "out of memory for the records of a batch");
                    s = FC_ERR_NO_MEMORY;
                    break;
                }
                data = t->data;
                cap = t->cap;
            }
            if (rec.length > 0)
                memcpy(data + used, rec.data, rec.length);
            views[k].data = data + used;
            at[k] = used;
            used += rec.length;
        }
        views[k].size = rec.length;
        index[k] = rec.index;
        offset[k] = rec.offset;
        src[k] = cur;
        k++;
    }
    if (!in_place)
        t->used = used;
    t->n = k;
    return s;
}

/* reader_gather with a shuffle buffer, or records to skip: records read
 * go into the buffer while it has room, and each record of the batch is
 * drawn from it; with no source open (all read) the buffer is drawn until
 * empty.  Records skipped are drawn and dropped, never parsed.  Every
 * record is copied into t.  Without the GIL. */
static fc_status reader_gather_mixed(reader_object *r, slot *t)
{
    fc_record rec;
    fc_status s;
    Py_ssize_t from;
    while (t->n < r->bsize) {
        size_t k = t->n;
        if (r->open && (r->shuf == NULL || !fcpy_shuffle_full(r->shuf))) {
            s = r->from_pre ? fcpy_prefetch_next(r->pre, (size_t)r->cur, &rec, &r->in.err)
                            : fc_input_next(&r->in, &rec);
            if (s != FC_OK)
                return s;
            from = r->cur;
            if (r->shuf != NULL) {
                if (fcpy_shuffle_put(r->shuf, &rec, from) != 0) {
                    fc_msg m = fc_error_begin(&r->in.err, FC_ERR_NO_MEMORY, rec.index,
                                              rec.offset);
                    fc_msg_str(&m, "out of memory for the shuffle buffer");
                    return FC_ERR_NO_MEMORY;
                }
                continue;
            }
        } else if (r->shuf != NULL && fcpy_shuffle_count(r->shuf) > 0) {
            fcpy_shuffle_draw(r->shuf, &rec, &from);
        } else {
            return FC_END;
        }
        if (r->skip > 0) {
            r->skip--;
            continue;
        }
        if (reserve(t, rec.length) != 0) {
            fc_msg m = fc_error_begin(&r->in.err, FC_ERR_NO_MEMORY, rec.index, rec.offset);
            fc_msg_str(&m, "out of memory for the records of a batch");
            return FC_ERR_NO_MEMORY;
        }
        if (rec.length > 0)
            memcpy(t->data + t->used, rec.data, rec.length);
        t->at[k] = t->used;
        t->views[k].data = t->data + t->used;
        t->used += rec.length;
        t->views[k].size = rec.length;
        t->index[k] = rec.index;
        t->offset[k] = rec.offset;
        t->src[k] = from;
        t->n = k + 1;
    }
    return FC_OK;
}

/* The records of the open source into t: reader_gather_mixed while it
 * has work, else reader_gather.  Without the GIL. */
static fc_status gather(reader_object *r, slot *t)
{
    return r->shuf != NULL || r->skip > 0 ? reader_gather_mixed(r, t) : reader_gather(r, t);
}

/* The views of t's copied records, set as they were copied, into its data
 * again if it moved since (reserve). */
static void fix_views(slot *t)
{
    size_t k;
    if (!t->moved)
        return;
    t->moved = 0;
    for (k = 0; k < t->n; k++)
        if (t->at[k] != SIZE_MAX)
            t->views[k].data = t->data + t->at[k];
}

/* Hands t (gathered) to the parse: to the threads, or to reader_next. */
static void slot_queue(reader_object *r, slot *t)
{
    fix_views(t);
    if (r->have_sync) {
        pthread_mutex_lock(&r->mu);
        t->state = SLOT_QUEUED;
        r->queued++;
        fcpy_wake_bump(&r->work_seq);
        pthread_cond_signal(&r->work_cv);
        pthread_mutex_unlock(&r->mu);
    } else {
        t->state = SLOT_QUEUED;
        r->queued++;
    }
}

/* Gathers batches into the free slots of the ring, in order, and queues
 * them.  -1 with an exception set: nothing is queued and nothing can be. */
static int reader_fill(reader_object *r)
{
    while (!gatherers_on(r) && !r->done && !r->blocked && r->queued - r->head < r->depth) {
        slot *t = &r->slots[r->queued % r->depth];
        fc_status s;
        while (t->n < r->bsize) {
            if (!r->open) {
                if (r->next >= PyTuple_Size(r->sources)) {
                    if (r->shuf != NULL && fcpy_shuffle_count(r->shuf) > 0) {
                        /* every source read: what the buffer holds */
                        Py_BEGIN_ALLOW_THREADS
                        s = reader_gather_mixed(r, t);
                        Py_END_ALLOW_THREADS
                        if (s == FC_OK)
                            break;
                        if (s != FC_END) { /* out of memory: raised after t's records */
                            t->input_failed = 1;
                            t->input_err = r->in.err;
                            t->input_src = r->cur;
                        }
                    }
                    r->done = 1;
                    break;
                }
                int o = reader_open_source(r, t);
                if (o < 0) {
                    if (t->n == 0 && r->queued == r->head)
                        return -1;
                    /* the records before it first, the error after them */
                    PyErr_Clear();
                    r->next--;
                    r->blocked = 1;
                    break;
                }
                if (o > 0)
                    return 0; /* t, begun, was the threads' next batch */
            }
            if (!take_stall(r, &s)) {
                Py_BEGIN_ALLOW_THREADS
                s = gather(r, t);
                Py_END_ALLOW_THREADS
            }
            if (s == FC_OK)
                break;
            if (slot_materialize(t) != 0) {
                t->n = t->first_here;
                reader_close_source(r);
                r->done = 1;
                PyErr_NoMemory();
                return -1;
            }
            if (s != FC_END) {
                t->input_failed = 1;
                t->input_err = r->in.err;
                t->input_src = r->cur;
                reader_close_source(r);
                break;
            }
            reader_close_source(r);
        }
        if (t->n == 0 && !t->input_failed)
            break; /* the end, or blocked */
        slot_queue(r, t);
    }
    return 0;
}

/* The head slot, handed out: free for the next batch. */
static void slot_clear(slot *t)
{
    t->state = SLOT_FREE;
    t->n = 0;
    t->first_here = 0;
    t->used = 0;
    t->live = -1;
    t->input_failed = 0;
}

static PyObject *reader_next(PyObject *self)
{
    reader_object *r = (reader_object *)self;
    slot *t;
    size_t n;
    PyObject *out = NULL;
    if (forked(r)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "a reader with threads cannot be used in a child process (fork)");
        return NULL;
    }
    for (;;) {
        int ready, st;
        if (reader_fill(r) != 0)
            return NULL;
        st = ring_state(r);
        if (st == RING_STALLED)
            continue; /* a gather stopped short since: reader_fill's */
        if (st == RING_EMPTY) {
            if (!r->blocked)
                return NULL; /* StopIteration */
            r->blocked = 0; /* open it again: its error now, or its records */
            if (reader_fill(r) != 0)
                return NULL;
            st = ring_state(r);
            if (st == RING_STALLED)
                continue;
            if (st == RING_EMPTY)
                return NULL;
        }
        t = &r->slots[r->head % r->depth];
        if (!r->have_sync) {
            if (t->state == SLOT_QUEUED) {
                Py_BEGIN_ALLOW_THREADS
                slot_parse(t);
                Py_END_ALLOW_THREADS
                t->state = SLOT_PARSED;
            }
            break;
        }
        Py_BEGIN_ALLOW_THREADS
        pthread_mutex_lock(&r->mu);
        while (t->state != SLOT_PARSED && !r->stalled && !(r->stop && t->state == SLOT_FREE))
            work_or_wait(r);
        ready = t->state == SLOT_PARSED;
        pthread_mutex_unlock(&r->mu);
        Py_END_ALLOW_THREADS
        if (ready)
            break;
        /* a gather stopped short: reader_fill goes on from it; or the
         * threads were stopped (close) before the batch was gathered */
    }
    n = t->n;
    if (n == 0) {
        /* what remains of a slot whose input failed after its records */
        raise_input_error(r, &t->input_err, t->input_src);
    } else if (t->status != FC_OK) {
        fc_error *err = &t->err;
        fcpy_batch_release(&t->w);
        if (err->record < n)
            fcpy_raise_error(err, source_name(r, t->src[err->record]), t->index[err->record],
                        t->offset[err->record], 1);
        else
            fcpy_raise_error(err, source_name(r, t->src[0]), FC_NO_INDEX, FC_NO_INDEX, 0);
    } else {
        out = r->raw     ? slot_records(t)
              : r->arrow ? fcpy_arrow_batch(&t->w)
                         : fcpy_batch_wrap(&t->w, r->ragged, 0);
        if (out != NULL) {
            r->batches++;
            r->records += n;
        }
    }
    if (r->have_sync)
        pthread_mutex_lock(&r->mu);
    if (n > 0 && t->input_failed) {
        t->n = 0; /* its error next time */
        t->live = -1;
    } else {
        slot_clear(t);
        r->head++;
        if (r->have_sync) { /* a free slot: the threads may gather into it */
            fcpy_wake_bump(&r->work_seq);
            pthread_cond_signal(&r->work_cv);
        }
    }
    if (r->have_sync)
        pthread_mutex_unlock(&r->mu);
    release_read(r);
    return out;
}

static int reader_traverse(PyObject *self, visitproc visit, void *arg)
{
    reader_object *r = (reader_object *)self;
    Py_VISIT(r->sources);
    Py_VISIT(r->names);
    Py_VISIT(r->held);
    Py_VISIT(r->pull_src);
    Py_VISIT(r->part_index);
    Py_VISIT(r->pull_value);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

/* Stops the threads, closes the open source and drops the batches in the
 * ring: iteration ends. */
static void reader_shut(reader_object *r)
{
    size_t i;
    reader_stop_threads(r);
    reader_close_source(r);
    if (r->pre != NULL) {
        if (!forked(r)) {
            Py_BEGIN_ALLOW_THREADS
            fcpy_prefetch_stop(r->pre);
            Py_END_ALLOW_THREADS
        }
        r->pre = NULL;
    }
    for (i = 0; r->slots != NULL && i < r->depth; i++) {
        fcpy_batch_release(&r->slots[i].w);
        slot_clear(&r->slots[i]);
    }
    r->head = r->queued = r->taken = 0;
    r->done = 1;
    r->blocked = 0;
}

static PyObject *reader_close(PyObject *self, PyObject *unused)
{
    (void)unused;
    reader_shut((reader_object *)self);
    Py_RETURN_NONE;
}

static void reader_dealloc(PyObject *self)
{
    reader_object *r = (reader_object *)self;
    PyTypeObject *tp = Py_TYPE(self);
    size_t i;
    PyObject_GC_UnTrack(self);
    reader_shut(r);
    Py_CLEAR(r->sources);
    Py_CLEAR(r->names);
    Py_CLEAR(r->index_path);
    Py_CLEAR(r->pull_type);
    Py_CLEAR(r->pull_value);
    Py_CLEAR(r->pull_tb);
    for (i = 0; r->slots != NULL && i < r->depth; i++) {
        slot *t = &r->slots[i];
        fcpy_batch_work_free(&t->w);
        free(t->views);
        free(t->at);
        free(t->index);
        free(t->offset);
        free(t->src);
        if (t->big)
            fcpy_big_give(t->data, t->cap);
        else
            free(t->data);
    }
    free(r->slots);
    free(r->threads);
    free(r->split_i);
    free(r->split_n);
    fcpy_shuffle_free(r->shuf);
    if (r->have_sync && !forked(r)) {
        pthread_mutex_destroy(&r->mu);
        pthread_cond_destroy(&r->work_cv);
        pthread_cond_destroy(&r->done_cv);
    }
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

static PyObject *reader_enter(PyObject *self, PyObject *unused)
{
    (void)unused;
    return Py_NewRef(self);
}

static PyObject *reader_exit(PyObject *self, PyObject *args)
{
    (void)args;
    return reader_close(self, NULL);
}

static PyObject *reader_get_records(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(((reader_object *)self)->records);
}

static PyObject *reader_get_batches(PyObject *self, void *closure)
{
    (void)closure;
    return PyLong_FromUnsignedLongLong(((reader_object *)self)->batches);
}

static PyObject *reader_arrow_stream(PyObject *self, PyObject *args, PyObject *kw)
{
    reader_object *r = (reader_object *)self;
    if (!r->arrow) {
        PyErr_SetString(PyExc_TypeError, "an Arrow stream comes from read(..., format='arrow')");
        return NULL;
    }
    return fcpy_arrow_stream(self, r->m, r->arrow == 2 ? FC_ARROW_LARGE : 0u, args, kw);
}

static PyMethodDef reader_methods[] = {
    {"close", reader_close, METH_NOARGS, "Closes the open file; iteration ends."},
    {"__enter__", reader_enter, METH_NOARGS, NULL},
    {"__arrow_c_stream__", (PyCFunction)(void (*)(void))reader_arrow_stream,
     METH_VARARGS | METH_KEYWORDS,
     "__arrow_c_stream__(requested_schema=None)\n--\n\n"
     "The batches still to come as an Arrow stream (a PyCapsule), for a reader of\n"
     "read(format='arrow')."},
    {"__exit__", reader_exit, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef reader_getset[] = {
    {"records", reader_get_records, NULL, "Records in the batches handed out so far.", NULL},
    {"batches", reader_get_batches, NULL, "Batches handed out so far.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static const fslot reader_slots[] = {
    {Py_tp_dealloc, FN(reader_dealloc), NULL},
    {Py_tp_traverse, FN(reader_traverse), NULL},
    {Py_tp_iter, FN(PyObject_SelfIter), NULL},
    {Py_tp_iternext, FN(reader_next), NULL},
    {Py_tp_methods, NULL, (void *)reader_methods},
    {Py_tp_getset, NULL, (void *)reader_getset},
    {Py_tp_doc, NULL, (void *)"An iterator over the batches of TFRecord sources (see read())."},
    {0, NULL, NULL}};

PyObject *fcpy_reader_type_new(void)
{
    return fcpy_make_type("featc.Reader", sizeof(reader_object),
                          Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, reader_slots);
}

/* The name of a source in messages: a path as given, "<bytes>", or a file
 * object's name. */
static PyObject *name_of(PyObject *s)
{
    PyObject *b = NULL, *nm;
    if (PyUnicode_Check(s) || PyBytes_Check(s) || PyObject_HasAttrString(s, "__fspath__")) {
        if (PyBytes_Check(s) && !PyObject_HasAttrString(s, "__fspath__"))
            return PyBytes_FromString("<bytes>");
        if (!PyUnicode_FSConverter(s, &b))
            return NULL;
        return b;
    }
    if (PyObject_CheckBuffer(s))
        return PyBytes_FromString("<bytes>");
    if (!PyObject_HasAttrString(s, "read") && !PyObject_HasAttrString(s, "getbuffer")) {
        PyErr_Format(PyExc_TypeError,
                     "a source is a path, a bytes-like object or a binary file object, not %S",
                     (PyObject *)Py_TYPE(s));
        return NULL;
    }
    nm = PyObject_GetAttrString(s, "name");
    if (nm == NULL) {
        PyErr_Clear();
        return PyBytes_FromString("<file>");
    }
    if (PyUnicode_Check(nm) && PyUnicode_FSConverter(nm, &b)) {
        Py_DECREF(nm);
        return b;
    }
    PyErr_Clear();
    Py_DECREF(nm);
    return PyBytes_FromString("<file>");
}

static const char *const varlen_words[] = {"sparse", "ragged", NULL, "'sparse', 'ragged'"};
static const char *const format_words[] = {"numpy", "arrow", "arrow-large", NULL,
                                           "'numpy', 'arrow', 'arrow-large'"};

/* read()'s keywords besides source, index and message, checked. */
typedef struct read_args {
    fc_input_options opt;
    size_t bsize, nthreads;
    int ragged;
} read_args;

static int read_options(read_args *a, PyObject *batch, PyObject *compression, PyObject *crc,
                        PyObject *split, PyObject *range, PyObject *varlen, PyObject *maxrec,
                        PyObject *sync, PyObject *threads)
{
    size_t mr = 0;
    memset(a, 0, sizeof *a);
    a->bsize = 256;
    a->nthreads = 1;
    a->opt.compression = FC_COMPRESSION_AUTO;
    a->opt.crc_policy = FC_CRC_VERIFY;
    a->opt.sync = FC_SYNC_WALK;
    if ((batch != NULL && fcpy_size_option(batch, "batch_size", 1, MAX_BATCH, &a->bsize) != 0) ||
        (compression != NULL && fcpy_compression_option(compression, 1, &a->opt.compression) != 0) ||
        (crc != NULL && fcpy_crc_option(crc, &a->opt.crc_policy) != 0) ||
        (varlen != NULL && fcpy_word_option(varlen, "varlen", varlen_words, &a->ragged) != 0) ||
        (sync != NULL && fcpy_sync_option(sync, &a->opt.sync) != 0) ||
        (maxrec != Py_None &&
         fcpy_size_option(maxrec, "max_record_size", 1, PY_SSIZE_T_MAX, &mr) != 0) ||
        (threads != NULL && threads != Py_None &&
         fcpy_size_option(threads, "threads", 0, MAX_THREADS, &a->nthreads) != 0))
        return -1;
    a->opt.max_record_size = mr;
    if (a->nthreads == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        a->nthreads = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (size_t)cpus;
    }
    if (split != Py_None && range != Py_None) {
        PyErr_SetString(PyExc_ValueError, "split and byte_range: one or the other");
        return -1;
    }
    if (split != Py_None) {
        if (fcpy_pair_option(split, "split", &a->opt.part_a, &a->opt.part_b) != 0)
            return -1;
        if (a->opt.part_b == 0 || a->opt.part_b == UINT64_MAX || a->opt.part_a >= a->opt.part_b) {
            PyErr_Format(PyExc_ValueError, "split (i, n) needs 0 <= i < n, not %R", split);
            return -1;
        }
        a->opt.part = FC_PART_SPLIT;
    } else if (range != Py_None) {
        if (fcpy_pair_option(range, "byte_range", &a->opt.part_a, &a->opt.part_b) != 0)
            return -1;
        if (a->opt.part_a > a->opt.part_b) {
            PyErr_Format(PyExc_ValueError, "byte_range (a, b) needs a <= b, not %R", range);
            return -1;
        }
        a->opt.part = FC_PART_RANGE;
    }
    return 0;
}

/* The sources (one, or a list or tuple of them) as a tuple, and their
 * names; 0, or -1 with an exception. */
static int read_sources(PyObject *source, PyObject **list, PyObject **names)
{
    Py_ssize_t k, ns;
    if (PyList_Check(source) || PyTuple_Check(source))
        *list = PySequence_Tuple(source);
    else
        *list = PyTuple_Pack(1, source);
    if (*list == NULL)
        return -1;
    ns = PyTuple_Size(*list);
    *names = PyTuple_New(ns);
    for (k = 0; *names != NULL && k < ns; k++) {
        PyObject *nm = name_of(PyTuple_GetItem(*list, k));
        if (nm == NULL)
            Py_CLEAR(*names);
        else
            PyTuple_SetItem(*names, k, nm);
    }
    if (*names == NULL) {
        Py_CLEAR(*list);
        return -1;
    }
    return 0;
}

/* splits=: a split (i, n) or None per source, into r->split_i/split_n. */
static int read_splits(reader_object *r, PyObject *splits, PyObject *split, PyObject *range)
{
    Py_ssize_t ns = PyTuple_Size(r->sources), k;
    PyObject *seq;
    if (split != Py_None || range != Py_None) {
        PyErr_SetString(PyExc_ValueError, "splits and split or byte_range: one or the other");
        return -1;
    }
    seq = PySequence_Tuple(splits);
    if (seq == NULL)
        return -1;
    if (PyTuple_Size(seq) != ns) {
        PyErr_Format(PyExc_ValueError, "splits has %zd entries for %zd sources",
                     PyTuple_Size(seq), ns);
        Py_DECREF(seq);
        return -1;
    }
    r->split_i = (uint64_t *)calloc((size_t)ns + 1, sizeof *r->split_i);
    r->split_n = (uint64_t *)calloc((size_t)ns + 1, sizeof *r->split_n);
    if (r->split_i == NULL || r->split_n == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (k = 0; k < ns; k++) {
        PyObject *e = PyTuple_GetItem(seq, k);
        uint64_t i, n;
        if (e == Py_None)
            continue;
        if (fcpy_pair_option(e, "splits", &i, &n) != 0) {
            Py_DECREF(seq);
            return -1;
        }
        if (n == 0 || n == UINT64_MAX || i >= n) {
            PyErr_Format(PyExc_ValueError, "splits[%zd]: a split (i, n) needs 0 <= i < n, not %R",
                         k, e);
            Py_DECREF(seq);
            return -1;
        }
        r->split_i[k] = i;
        r->split_n[k] = n;
    }
    Py_DECREF(seq);
    return 0;
}

/* threads=1: one slot, parsed on the caller's thread; else 2 per thread. */
static int reader_slots_alloc(reader_object *r, size_t nthreads)
{
    size_t i, bsize = r->bsize;
    r->depth = nthreads > 1 ? 2 * nthreads : 1;
    r->slots = (slot *)calloc(r->depth, sizeof *r->slots);
    if (r->slots == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (i = 0; i < r->depth; i++) {
        slot *t = &r->slots[i];
        t->live = -1;
        t->bsize = bsize;
        t->views = (fc_bytes *)calloc(bsize, sizeof *t->views);
        t->at = (size_t *)calloc(bsize, sizeof *t->at);
        t->index = (uint64_t *)calloc(bsize, sizeof *t->index);
        t->offset = (uint64_t *)calloc(bsize, sizeof *t->offset);
        t->src = (Py_ssize_t *)calloc(bsize, sizeof *t->src);
        if (t->views == NULL || t->at == NULL || t->index == NULL || t->offset == NULL ||
            t->src == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        if (!r->raw && fcpy_batch_work_init(&t->w, r->m, bsize,
                                            r->arrow    ? FC_BATCH_RAGGED | FC_BATCH_PACKED
                                            : r->ragged ? FC_BATCH_RAGGED
                                                        : FC_BATCH_SPARSE) != 0)
            return -1;
        t->w.arrow = r->arrow;
    }
    return 0;
}

/* The nthreads - 1 parse threads beside the caller's. */
static int reader_threads_start(reader_object *r, size_t nthreads)
{
    size_t i;
    int e;
    if (nthreads <= 1)
        return 0;
    r->threads = (pthread_t *)calloc(nthreads - 1, sizeof *r->threads);
    if (r->threads == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->work_cv, NULL);
    pthread_cond_init(&r->done_cv, NULL);
    r->have_sync = 1;
    r->can_spin = fcpy_wait_can_spin(nthreads);
    (void)pthread_once(&fork_watch_once, fork_watch);
    r->pid = getpid();
    r->forks = forks_seen;
    for (i = 0; i + 1 < nthreads; i++) {
        if ((e = pthread_create(&r->threads[i], NULL, parse_main, r)) != 0) {
            errno = e;
            PyErr_SetFromErrno(PyExc_OSError);
            return -1;
        }
        r->started++;
    }
    return 0;
}

PyObject *fcpy_read(PyObject *module, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"source", "batch_size", "compression", "crc", "split",
                             "byte_range", "varlen", "message", "max_record_size", "sync",
                             "index", "threads", "splits", "shuffle", "seed", "skip", "raw",
                             "format", NULL};
    PyObject *source, *batch = NULL, *compression = NULL, *crc = NULL, *split = Py_None;
    PyObject *range = Py_None, *varlen = NULL, *message = Py_None, *maxrec = Py_None;
    PyObject *sync = NULL, *index = Py_None, *threads = NULL, *list = NULL, *names = NULL;
    PyObject *splits = Py_None, *shuffle = NULL, *seed = NULL, *skip = NULL;
    size_t nshuffle = 0, nskip = 0;
    int raw = 0, arrow = 0;
    PyObject *format = NULL;
    uint64_t seed_v = 0;
    reader_object *r;
    const fcpy_message *m;
    read_args a;
    (void)module;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O$OOOOOOOOOOOOOOpO", kwlist, &source, &batch,
                                     &compression, &crc, &split, &range, &varlen, &message,
                                     &maxrec, &sync, &index, &threads, &splits, &shuffle, &seed,
                                     &skip, &raw, &format))
        return NULL;
    if (format != NULL && fcpy_word_option(format, "format", format_words, &arrow) != 0)
        return NULL;
    if (arrow && raw) {
        PyErr_SetString(PyExc_ValueError, "raw=True and format='arrow': one or the other");
        return NULL;
    }
    if ((shuffle != NULL && fcpy_size_option(shuffle, "shuffle", 0, MAX_SHUFFLE, &nshuffle) != 0) ||
        (skip != NULL && fcpy_size_option(skip, "skip", 0, PY_SSIZE_T_MAX, &nskip) != 0))
        return NULL;
    if (seed != NULL) {
        if (!PyLong_Check(seed)) {
            PyErr_Format(PyExc_TypeError, "seed must be an int, not %S",
                         (PyObject *)Py_TYPE(seed));
            return NULL;
        }
        seed_v = (uint64_t)PyLong_AsUnsignedLongLongMask(seed); /* (its low 64 bits) */
        if (PyErr_Occurred())
            return NULL;
    }
    if ((m = fcpy_find_message(message)) == NULL ||
        read_options(&a, batch, compression, crc, split, range, varlen, maxrec, sync,
                     threads) != 0 ||
        read_sources(source, &list, &names) != 0)
        return NULL;
    r = PyObject_GC_New(reader_object, (PyTypeObject *)fcpy_g.reader_type);
    if (r == NULL) {
        Py_DECREF(list);
        Py_DECREF(names);
        return NULL;
    }
    memset((char *)r + sizeof(PyObject), 0, sizeof *r - sizeof(PyObject));
    r->m = m;
    r->sources = list;
    r->names = names;
    r->opt = a.opt;
    r->bsize = a.bsize;
    r->ragged = a.ragged;
    r->raw = raw;
    r->arrow = arrow;
    if (arrow)
        r->ragged = 1; /* (Arrow's lists are the row splits) */
    r->skip = nskip;
    PyObject_GC_Track((PyObject *)r);
    if (splits != Py_None && read_splits(r, splits, split, range) != 0) {
        Py_DECREF(r);
        return NULL;
    }
    if (nshuffle > 0 && (r->shuf = fcpy_shuffle_new(nshuffle, seed_v)) == NULL) {
        PyErr_NoMemory();
        Py_DECREF(r);
        return NULL;
    }
    if (index != Py_None) {
        if (!PyUnicode_FSConverter(index, &r->index_path)) {
            Py_DECREF(r);
            return NULL;
        }
        r->opt.index_path = PyBytes_AsString(r->index_path);
    }
    if (reader_slots_alloc(r, a.nthreads) != 0 || reader_threads_start(r, a.nthreads) != 0) {
        Py_DECREF(r);
        return NULL;
    }
    r->pre = fcpy_prefetch_start(r->sources, r->names, r->split_n, &r->opt,
                                 (unsigned)a.nthreads);
    /* threads=N without the read-ahead of whole files (one compressed
     * path): each GZIP or ZLIB file inflated on a thread of its own */
    if (r->pre == NULL && a.nthreads >= 2)
        r->opt.inflate_ahead = 1;
    return (PyObject *)r;
}
