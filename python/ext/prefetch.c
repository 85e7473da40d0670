/* Compressed files inflated ahead, on threads of their own (read() with
 * threads=N over several paths).  Inflating is the slow step of a GZIP
 * or ZLIB file (100-300 MB/s against a parse of 1-3 GB/s), and the
 * caller's thread frames the records of one source at a time; so N
 * inflate threads each take the next path in order, within a window of N
 * sources from the one being read, and frame its records into chunks
 * (copies, with their index and offset), at most QMAX chunks ahead.  The
 * reader takes the records of a source from its chunks, in order, as it
 * would from fc_input_next: the same records, the same error after the
 * same records, so the same batches.  A file that turns out not to be
 * compressed is handed back (the reader maps it and reads it in place),
 * and so is a source no thread has started when the reader gets to it.
 * Memory: at most N sources x QMAX chunks of CHUNK_BYTES (or one record,
 * when that is larger). */
#include "ext.h"

#include <pthread.h>

#define CHUNK_BYTES ((size_t)1 << 20)
#define CHUNK_RECS 4096
#define QMAX 4

enum { PF_IDLE, PF_RUNNING, PF_READY, PF_MINE };

typedef struct pf_chunk {
    struct pf_chunk *next;
    unsigned char *data;
    size_t used, cap;
    fc_record recs[CHUNK_RECS]; /* data: NULL; at[i] is where in data */
    size_t at[CHUNK_RECS];
    size_t n, taken;
} pf_chunk;

typedef struct pf_source {
    int state;      /* PF_IDLE until a thread or the reader takes it */
    int eligible;   /* a path */
    const char *path;
    pf_chunk *head, *tail;
    size_t nchunks;
    pf_chunk *cur;  /* the reader's: the chunk it takes records from, off the queue */
    int ended;      /* the last chunk is in: status says how it ended */
    fc_status status;
    fc_error err;
} pf_source;

struct fcpy_prefetch {
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* the threads': room, the window moved, stop */
    pthread_cond_t data_cv; /* the reader's: a chunk, an end, an open */
    pthread_t *threads;
    unsigned nthreads, started;
    pf_source *src;
    size_t nsrc, lo; /* lo: the source the reader is at */
    int stop;
    fc_input_options opt;
};

static void free_chunks(pf_source *s)
{
    if (s->cur != NULL) {
        free(s->cur->data);
        free(s->cur);
        s->cur = NULL;
    }
    while (s->head != NULL) {
        pf_chunk *c = s->head;
        s->head = c->next;
        free(c->data);
        free(c);
    }
    s->tail = NULL;
    s->nchunks = 0;
}

/* Puts chunk c (may be NULL) at the end of s's queue; waits while the
 * queue is full.  0, or -1 when the reader stopped (c is freed). */
static int push(fcpy_prefetch *p, pf_source *s, pf_chunk *c)
{
    int stopped;
    pthread_mutex_lock(&p->mu);
    while (!p->stop && c != NULL && s->nchunks >= QMAX && s->state != PF_MINE)
        pthread_cond_wait(&p->work_cv, &p->mu);
    stopped = p->stop || s->state == PF_MINE;
    if (!stopped && c != NULL) {
        if (s->tail != NULL)
            s->tail->next = c;
        else
            s->head = c;
        s->tail = c;
        s->nchunks++;
        pthread_cond_broadcast(&p->data_cv);
    }
    pthread_mutex_unlock(&p->mu);
    if (stopped && c != NULL) {
        free(c->data);
        free(c);
    }
    return stopped ? -1 : 0;
}

/* Record rec into chunk *cp, a new one when it is full (the full one
 * queued).  FC_OK, FC_ERR_NO_MEMORY, or FC_END when the reader stopped. */
static fc_status add(fcpy_prefetch *p, pf_source *s, pf_chunk **cp, const fc_record *rec)
{
    pf_chunk *c = *cp;
    if (c != NULL && (c->n == CHUNK_RECS || (c->used > 0 && rec->length > c->cap - c->used))) {
        *cp = NULL;
        if (push(p, s, c) != 0)
            return FC_END;
        c = NULL;
    }
    if (c == NULL) {
        size_t cap = rec->length > CHUNK_BYTES ? rec->length : CHUNK_BYTES;
        c = (pf_chunk *)calloc(1, sizeof *c);
        if (c == NULL || (c->data = (unsigned char *)malloc(cap)) == NULL) {
            free(c);
            return FC_ERR_NO_MEMORY;
        }
        c->cap = cap;
        *cp = c;
    }
    if (rec->length > 0)
        memcpy(c->data + c->used, rec->data, rec->length);
    c->recs[c->n] = *rec;
    c->recs[c->n].data = NULL;
    c->at[c->n] = c->used;
    c->used += rec->length;
    c->n++;
    return FC_OK;
}

/* Frames source k into chunks, from its open to its end or error. */
static void inflate_source(fcpy_prefetch *p, size_t k)
{
    pf_source *s = &p->src[k];
    pf_chunk *c = NULL;
    fc_input in;
    fc_record rec;
    fc_status st = fc_input_open(&in, s->path, &p->opt);
    int compressed = st == FC_OK && fc_reader_compression(&in.reader) != FC_COMPRESSION_NONE;
    if (st != FC_OK || !compressed) {
        /* a file that failed to open, or that is not compressed: the
         * reader opens it itself, and meets what happens there */
        if (st == FC_OK)
            fc_input_close(&in);
        pthread_mutex_lock(&p->mu);
        if (s->state == PF_RUNNING)
            s->state = PF_MINE;
        pthread_cond_broadcast(&p->data_cv);
        pthread_mutex_unlock(&p->mu);
        return;
    }
    pthread_mutex_lock(&p->mu);
    if (s->state == PF_RUNNING)
        s->state = PF_READY;
    pthread_cond_broadcast(&p->data_cv);
    pthread_mutex_unlock(&p->mu);
    while ((st = fc_input_next(&in, &rec)) == FC_OK)
        if ((st = add(p, s, &c, &rec)) != FC_OK)
            break;
    if (st == FC_ERR_NO_MEMORY) {
        fc_msg m = fc_error_begin(&in.err, FC_ERR_NO_MEMORY, rec.index, rec.offset);
        fc_msg_str(&m, "out of memory for the records read ahead");
    }
    if (c != NULL && push(p, s, c) != 0)
        st = FC_END;
    pthread_mutex_lock(&p->mu);
    s->status = st;
    s->err = in.err;
    s->ended = 1;
    pthread_cond_broadcast(&p->data_cv);
    pthread_mutex_unlock(&p->mu);
    fc_input_close(&in);
}

static void *inflate_main(void *arg)
{
    fcpy_prefetch *p = (fcpy_prefetch *)arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        size_t k, end = p->lo + p->nthreads < p->nsrc ? p->lo + p->nthreads : p->nsrc;
        for (k = p->lo; k < end; k++)
            if (p->src[k].eligible && p->src[k].state == PF_IDLE)
                break;
        if (k == end) {
            pthread_cond_wait(&p->work_cv, &p->mu);
            continue;
        }
        p->src[k].state = PF_RUNNING;
        pthread_mutex_unlock(&p->mu);
        inflate_source(p, k);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

fcpy_prefetch *fcpy_prefetch_start(PyObject *sources, PyObject *names,
                                   const fc_input_options *opt, unsigned nthreads)
{
    fcpy_prefetch *p;
    Py_ssize_t n = PyTuple_Size(sources), k, paths = 0;
    unsigned i;
    if (nthreads < 2 || n < 2 || opt->part != FC_PART_ALL || opt->index_path != NULL)
        return NULL;
    p = (fcpy_prefetch *)calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->src = (pf_source *)calloc((size_t)n, sizeof *p->src);
    p->threads = (pthread_t *)calloc(nthreads, sizeof *p->threads);
    if (p->src == NULL || p->threads == NULL) {
        free(p->src);
        free(p->threads);
        free(p);
        return NULL;
    }
    p->nsrc = (size_t)n;
    p->nthreads = nthreads;
    p->opt = *opt;
    for (k = 0; k < n; k++) {
        PyObject *s = PyTuple_GetItem(sources, k);
        p->src[k].eligible = fcpy_source_is_path(s);
        p->src[k].path = PyBytes_AsString(PyTuple_GetItem(names, k));
        paths += p->src[k].eligible;
    }
    PyErr_Clear();
    if (paths < 2) {
        free(p->src);
        free(p->threads);
        free(p);
        return NULL;
    }
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->data_cv, NULL);
    for (i = 0; i < nthreads; i++) {
        if (pthread_create(&p->threads[i], NULL, inflate_main, p) != 0)
            break;
        p->started++;
    }
    if (p->started == 0) {
        fcpy_prefetch_stop(p);
        return NULL;
    }
    return p;
}

void fcpy_prefetch_stop(fcpy_prefetch *p)
{
    unsigned i;
    size_t k;
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    for (k = 0; k < p->nsrc; k++)
        free_chunks(&p->src[k]);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->data_cv);
    free(p->src);
    free(p->threads);
    free(p);
}

int fcpy_prefetch_claim(fcpy_prefetch *p, size_t k)
{
    pf_source *s;
    int mine;
    if (p == NULL || k >= p->nsrc)
        return 0;
    s = &p->src[k];
    pthread_mutex_lock(&p->mu);
    p->lo = k;
    pthread_cond_broadcast(&p->work_cv);
    if (s->state == PF_IDLE)
        s->state = PF_MINE; /* no thread got to it: the reader reads it */
    while (s->state == PF_RUNNING)
        pthread_cond_wait(&p->data_cv, &p->mu);
    mine = s->state == PF_MINE;
    pthread_mutex_unlock(&p->mu);
    return mine ? 0 : 1;
}

fc_status fcpy_prefetch_next(fcpy_prefetch *p, size_t k, fc_record *rec, fc_error *err)
{
    pf_source *s = &p->src[k];
    pf_chunk *c = s->cur;
    fc_status st;
    if (c == NULL || c->taken == c->n) {
        /* the next chunk off the queue (the one used up: its last record
         * has been copied by now), without the lock per record */
        if (c != NULL) {
            free(c->data);
            free(c);
            s->cur = c = NULL;
        }
        pthread_mutex_lock(&p->mu);
        while (s->head == NULL && !s->ended)
            pthread_cond_wait(&p->data_cv, &p->mu);
        c = s->head;
        if (c == NULL) {
            st = s->status;
            if (st != FC_END && err != NULL)
                *err = s->err;
            pthread_mutex_unlock(&p->mu);
            return st;
        }
        s->head = c->next;
        if (s->head == NULL)
            s->tail = NULL;
        s->nchunks--;
        s->cur = c;
        pthread_cond_broadcast(&p->work_cv);
        pthread_mutex_unlock(&p->mu);
    }
    *rec = c->recs[c->taken];
    rec->data = c->data + c->at[c->taken];
    c->taken++;
    return FC_OK;
}

void fcpy_prefetch_release(fcpy_prefetch *p, size_t k)
{
    pf_source *s;
    if (p == NULL || k >= p->nsrc)
        return;
    s = &p->src[k];
    pthread_mutex_lock(&p->mu);
    if (s->state != PF_IDLE && s->state != PF_MINE && !s->ended) {
        /* a source left before its end (the reader closed): the thread
         * stops at its next chunk */
        s->state = PF_MINE;
        pthread_cond_broadcast(&p->work_cv);
    }
    free_chunks(s);
    pthread_mutex_unlock(&p->mu);
}
