/* Compressed files inflated ahead, on threads of their own (read() with
 * threads=N over several paths, or over a seekable GZIP file).  Inflating
 * is the slow step of a GZIP or ZLIB file (100-300 MB/s against a parse
 * of 1-3 GB/s), and the caller's thread frames the records of one source
 * at a time; so N inflate threads each take the next job in order, within
 * a window of N jobs from the one being read, and frame its records into
 * chunks (copies, with their index and offset), at most QMAX chunks ahead.
 * A job is a whole path, or a piece of one: a GZIP file with a member
 * index (FILE.members, as `featc index --members` or a seekable writer
 * leaves) is cut at its members into pieces that threads inflate at once.
 * The reader takes the records of a source from its jobs' chunks, in
 * order, as it would from fc_input_next: the same records, the same error
 * after the same records, so the same batches.
 * - A file that turns out not to be compressed is handed back (the reader
 *   maps it and reads it in place), and so is a whole-file job no thread
 *   has started when the reader gets to it.
 * - The member index is a claim: each piece checks the claims of the
 *   members it reads (fc_reader_range_members), the last piece reads to
 *   the file's end, members or not.  When a piece fails, for any reason,
 *   its error is not shown: the reader opens the file whole, as one thread
 *   does, passes the records it has already handed out, and reads on;
 *   what happens there (an error, or none when only the index was wrong)
 *   is what one thread meets.
 * Memory: at most N x (QMAX + 1) + 1 chunks of CHUNK_BYTES (or one
 * record, when that is larger): N jobs' queues, the chunk each thread
 * fills and the one the reader takes from; and each piece's member
 * list.  A chunk of CHUNK_BYTES the reader is done with is kept for the
 * next one a thread
 * fills (as many as can be in use at once), not freed: a fresh megabyte
 * costs its page faults and a freed one the kernel's unmapping, which on
 * the test machine made threads=2 over four GZIP shards 2.6 times slower
 * than threads=1. */
#include "ext.h"

#include <pthread.h>
#include <stdio.h>

#define CHUNK_BYTES ((size_t)256 << 10)
#define CHUNK_RECS 2048
#define QMAX 8
/* pieces of a seekable file: up to PIECES_PER_THREAD per thread, none
 * under MIN_PIECE compressed bytes (a piece costs an open) */
#define PIECES_PER_THREAD 4
#define MIN_PIECE ((uint64_t)32 << 10)

enum { PF_IDLE, PF_RUNNING, PF_READY, PF_MINE };

typedef struct pf_chunk {
    struct pf_chunk *next;
    unsigned char *data;
    size_t used, cap;
    fc_record recs[CHUNK_RECS]; /* data: NULL; at[i] is where in data */
    size_t at[CHUNK_RECS];
    size_t n, taken;
} pf_chunk;

/* A whole path, or a piece of one: the records of the members that start
 * in compressed bytes [a, b) (b UINT64_MAX: to the end). */
typedef struct pf_job {
    int state;      /* PF_IDLE until a thread or the reader takes it */
    size_t src;
    int piece;
    uint64_t a, b;
    pf_chunk *head, *tail;
    size_t nchunks;
    pf_chunk *cur;  /* the reader's: the chunk it takes records from, off the queue */
    int ended;      /* the last chunk is in: status says how it ended */
    int full_wait;  /* its thread waits in push for room */
    fc_status status;
    fc_error err;
} pf_job;

typedef struct pf_source {
    int eligible;     /* a path */
    const char *path;
    size_t job, njobs; /* its jobs: job .. job + njobs */
    size_t at;        /* the job the reader takes records from */
    uint64_t handed;  /* pieces: records handed out so far */
    fc_input *whole;  /* a piece failed: the file read whole by the reader */
} pf_source;

struct fcpy_prefetch {
    pthread_mutex_t mu;
    pthread_cond_t work_cv; /* the threads': room, the window moved, stop */
    pthread_cond_t data_cv; /* the reader's: a chunk, an end, an open */
    pthread_t *threads;
    unsigned nthreads, started;
    pf_source *src;
    size_t nsrc;
    pf_job *jobs;
    size_t njobs, lo; /* lo: the job the reader is at */
    int stop;
    fc_input_options opt;
    pf_chunk *spare;  /* chunks of CHUNK_BYTES kept for reuse */
    size_t nspare;
};

static void chunk_free(pf_chunk *c)
{
    free(c->data);
    free(c);
}

/* Keeps c for reuse, or frees it (under the lock). */
static void chunk_put(fcpy_prefetch *p, pf_chunk *c)
{
    if (c->cap != CHUNK_BYTES || p->stop ||
        p->nspare >= (size_t)p->nthreads * (QMAX + 1u) + 1u) {
        chunk_free(c);
        return;
    }
    c->n = c->taken = c->used = 0;
    c->next = p->spare;
    p->spare = c;
    p->nspare++;
}

/* An empty chunk for a record of len bytes: a kept one, or a new one;
 * NULL when out of memory. */
static pf_chunk *chunk_get(fcpy_prefetch *p, size_t len)
{
    size_t cap = len > CHUNK_BYTES ? len : CHUNK_BYTES;
    pf_chunk *c = NULL;
    if (cap == CHUNK_BYTES) {
        pthread_mutex_lock(&p->mu);
        if ((c = p->spare) != NULL) {
            p->spare = c->next;
            p->nspare--;
            c->next = NULL;
        }
        pthread_mutex_unlock(&p->mu);
        if (c != NULL)
            return c;
    }
    /* (not calloc: its record table is written before it is read, and
     * zeroing it would touch every page) */
    c = (pf_chunk *)malloc(sizeof *c);
    if (c == NULL || (c->data = (unsigned char *)malloc(cap)) == NULL) {
        free(c);
        return NULL;
    }
    c->next = NULL;
    c->n = c->taken = c->used = 0;
    c->cap = cap;
    return c;
}

/* (under the lock) */
static void free_chunks(fcpy_prefetch *p, pf_job *j)
{
    if (j->cur != NULL) {
        chunk_put(p, j->cur);
        j->cur = NULL;
    }
    while (j->head != NULL) {
        pf_chunk *c = j->head;
        j->head = c->next;
        chunk_put(p, c);
    }
    j->tail = NULL;
    j->nchunks = 0;
}

/* Puts chunk c (may be NULL) at the end of j's queue; waits while the
 * queue is full.  0, or -1 when the reader stopped (c is freed). */
static int push(fcpy_prefetch *p, pf_job *j, pf_chunk *c)
{
    int stopped;
    pthread_mutex_lock(&p->mu);
    while (!p->stop && c != NULL && j->nchunks >= QMAX && j->state != PF_MINE) {
        j->full_wait = 1;
        pthread_cond_wait(&p->work_cv, &p->mu);
        j->full_wait = 0;
    }
    stopped = p->stop || j->state == PF_MINE;
    if (stopped && c != NULL)
        chunk_put(p, c);
    if (!stopped && c != NULL) {
        if (j->tail != NULL)
            j->tail->next = c;
        else
            j->head = c;
        j->tail = c;
        j->nchunks++;
        pthread_cond_broadcast(&p->data_cv);
    }
    pthread_mutex_unlock(&p->mu);
    return stopped ? -1 : 0;
}

/* Record rec into chunk *cp, a new one when it is full (the full one
 * queued).  FC_OK, FC_ERR_NO_MEMORY, or FC_END when the reader stopped. */
static fc_status add(fcpy_prefetch *p, pf_job *j, pf_chunk **cp, const fc_record *rec)
{
    pf_chunk *c = *cp;
    if (c != NULL && (c->n == CHUNK_RECS || (c->used > 0 && rec->length > c->cap - c->used))) {
        *cp = NULL;
        if (push(p, j, c) != 0)
            return FC_END;
        c = NULL;
    }
    if (c == NULL) {
        if ((c = chunk_get(p, rec->length)) == NULL)
            return FC_ERR_NO_MEMORY;
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

/* Ends job j with status st (err: its error). */
static void job_end(fcpy_prefetch *p, pf_job *j, fc_status st, const fc_error *err)
{
    pthread_mutex_lock(&p->mu);
    j->status = st;
    if (err != NULL)
        j->err = *err;
    j->ended = 1;
    pthread_cond_broadcast(&p->data_cv);
    pthread_mutex_unlock(&p->mu);
}

/* Frames job j into chunks, from its open to its end or error. */
static void inflate_job(fcpy_prefetch *p, pf_job *j)
{
    pf_chunk *c = NULL;
    fc_input in;
    fc_record rec;
    fc_input_options o = p->opt;
    fc_status st;
    int compressed;
    if (j->piece) {
        o.part = FC_PART_RANGE;
        o.part_a = j->a;
        o.part_b = j->b;
    }
    st = fc_input_open(&in, p->src[j->src].path, &o);
    compressed = st == FC_OK && fc_reader_compression(&in.reader) != FC_COMPRESSION_NONE;
    if (j->piece && !compressed) {
        /* (the file changed since the pieces were cut): the reader reads
         * it whole */
        if (st == FC_OK)
            fc_input_close(&in);
        job_end(p, j, st == FC_OK ? FC_ERR_STATE : st, NULL);
        return;
    }
    if (st != FC_OK || !compressed) {
        /* a file that failed to open, or that is not compressed: the
         * reader opens it itself, and meets what happens there */
        if (st == FC_OK)
            fc_input_close(&in);
        pthread_mutex_lock(&p->mu);
        if (j->state == PF_RUNNING)
            j->state = PF_MINE;
        pthread_cond_broadcast(&p->data_cv);
        pthread_mutex_unlock(&p->mu);
        return;
    }
    pthread_mutex_lock(&p->mu);
    if (j->state == PF_RUNNING)
        j->state = PF_READY;
    pthread_cond_broadcast(&p->data_cv);
    pthread_mutex_unlock(&p->mu);
    while ((st = fc_input_next(&in, &rec)) == FC_OK)
        if ((st = add(p, j, &c, &rec)) != FC_OK)
            break;
    if (st == FC_ERR_NO_MEMORY) {
        fc_msg m = fc_error_begin(&in.err, FC_ERR_NO_MEMORY, rec.index, rec.offset);
        fc_msg_str(&m, "out of memory for the records read ahead");
    }
    if (c != NULL && push(p, j, c) != 0)
        st = FC_END;
    job_end(p, j, st, &in.err);
    fc_input_close(&in);
}

static void *inflate_main(void *arg)
{
    fcpy_prefetch *p = (fcpy_prefetch *)arg;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        size_t k, end = p->lo + p->nthreads < p->njobs ? p->lo + p->nthreads : p->njobs;
        for (k = p->lo; k < end; k++)
            if (p->src[p->jobs[k].src].eligible && p->jobs[k].state == PF_IDLE)
                break;
        if (k == end) {
            pthread_cond_wait(&p->work_cv, &p->mu);
            continue;
        }
        p->jobs[k].state = PF_RUNNING;
        pthread_mutex_unlock(&p->mu);
        inflate_job(p, &p->jobs[k]);
        pthread_mutex_lock(&p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* How many jobs path makes with nthreads threads: 1, or its pieces, which
 * cut[0..n) start at (compressed offsets of members a record starts at;
 * cut[0] is 0).  cut has room for nthreads * PIECES_PER_THREAD. */
static size_t plan_pieces(const char *path, unsigned nthreads, uint64_t *cut)
{
    unsigned char magic[2];
    char *mp;
    fc_gzip_member *m = NULL;
    size_t n = 0, i, pieces = 0, want = (size_t)nthreads * PIECES_PER_THREAD;
    FILE *f = fopen(path, "rb");
    fc_error err;
    uint64_t size, step;
    int gzip;
    if (f == NULL)
        return 1;
    gzip = fread(magic, 1, 2, f) == 2 && magic[0] == 0x1f && magic[1] == 0x8b &&
           fseek(f, 0, SEEK_END) == 0 && ftell(f) > 0;
    size = gzip ? (uint64_t)ftell(f) : 0;
    fclose(f);
    if (!gzip || (mp = fc_input_sibling(path, ".members")) == NULL)
        return 1;
    fc_error_clear(&err);
    if (fc_input_load_members(mp, &m, &n, &err) != FC_OK)
        n = 0; /* no index, or one that cannot be read: the file whole */
    free(mp);
    step = size / want > MIN_PIECE ? size / want : MIN_PIECE;
    if (n >= 2 && m[0].offset == 0 && m[0].stream_offset == 0 && m[0].first_record == 0) {
        cut[pieces++] = 0;
        for (i = 1; i < n && pieces < want; i++)
            if (m[i].first_record != FC_NO_INDEX && m[i].offset >= cut[pieces - 1] + step &&
                m[i].offset < size)
                cut[pieces++] = m[i].offset;
    }
    free(m);
    return pieces >= 2 ? pieces : 1;
}

fcpy_prefetch *fcpy_prefetch_start(PyObject *sources, PyObject *names, const uint64_t *split_n,
                                   const fc_input_options *opt, unsigned nthreads)
{
    fcpy_prefetch *p;
    Py_ssize_t n = PyTuple_Size(sources), k;
    size_t paths = 0, pieced = 0, cap, want = (size_t)nthreads * PIECES_PER_THREAD, i;
    uint64_t *cut;
    unsigned t;
    if (nthreads < 2 || n < 1 || opt->part != FC_PART_ALL || opt->index_path != NULL)
        return NULL;
    p = (fcpy_prefetch *)calloc(1, sizeof *p);
    cut = (uint64_t *)malloc(want * sizeof *cut);
    if (p == NULL || cut == NULL || (size_t)n > SIZE_MAX / want / sizeof *p->jobs)
        goto fail;
    cap = (size_t)n * want;
    p->src = (pf_source *)calloc((size_t)n, sizeof *p->src);
    p->jobs = (pf_job *)calloc(cap, sizeof *p->jobs);
    p->threads = (pthread_t *)calloc(nthreads, sizeof *p->threads);
    if (p->src == NULL || p->jobs == NULL || p->threads == NULL)
        goto fail;
    p->nsrc = (size_t)n;
    p->nthreads = nthreads;
    p->opt = *opt;
    for (k = 0; k < n; k++) {
        pf_source *s = &p->src[k];
        size_t np = 1;
        s->eligible = fcpy_source_is_path(PyTuple_GetItem(sources, k)) &&
                      (split_n == NULL || split_n[k] == 0); /* (a split: read by the reader) */
        s->path = PyBytes_AsString(PyTuple_GetItem(names, k));
        if (s->path == NULL)
            s->eligible = 0;
        paths += (size_t)s->eligible;
        s->job = p->njobs;
        if (s->eligible) {
            Py_BEGIN_ALLOW_THREADS
            np = plan_pieces(s->path, nthreads, cut);
            Py_END_ALLOW_THREADS
        }
        for (i = 0; i < np; i++) {
            pf_job *j = &p->jobs[p->njobs++];
            j->src = (size_t)k;
            if (np > 1) {
                j->piece = 1;
                j->a = cut[i];
                j->b = i + 1 < np ? cut[i + 1] : UINT64_MAX;
            }
        }
        s->njobs = np;
        pieced += np > 1;
    }
    PyErr_Clear();
    free(cut);
    cut = NULL;
    if (paths < 2 && pieced == 0)
        goto fail;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->data_cv, NULL);
    for (t = 0; t < nthreads; t++) {
        if (pthread_create(&p->threads[t], NULL, inflate_main, p) != 0)
            break;
        p->started++;
    }
    if (p->started == 0) {
        fcpy_prefetch_stop(p);
        return NULL;
    }
    return p;
fail:
    free(cut);
    if (p != NULL) {
        free(p->src);
        free(p->jobs);
        free(p->threads);
        free(p);
    }
    PyErr_Clear();
    return NULL;
}

/* Stops the threads' work on source k's jobs and frees their chunks
 * (under the lock). */
static void drop_jobs(fcpy_prefetch *p, pf_source *s)
{
    size_t i;
    for (i = s->job; i < s->job + s->njobs; i++) {
        pf_job *j = &p->jobs[i];
        if (j->state != PF_IDLE && j->state != PF_MINE && !j->ended) {
            /* a job left before its end: the thread stops at its next chunk */
            j->state = PF_MINE;
            pthread_cond_broadcast(&p->work_cv);
        }
        if (j->state == PF_IDLE)
            j->state = PF_MINE;
        free_chunks(p, j);
    }
}

static void close_whole(pf_source *s)
{
    if (s->whole != NULL) {
        fc_input_close(s->whole);
        free(s->whole);
        s->whole = NULL;
    }
}

void fcpy_prefetch_stop(fcpy_prefetch *p)
{
    unsigned t;
    size_t k;
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (t = 0; t < p->started; t++)
        pthread_join(p->threads[t], NULL);
    for (k = 0; k < p->njobs; k++)
        free_chunks(p, &p->jobs[k]);
    while (p->spare != NULL) {
        pf_chunk *c = p->spare;
        p->spare = c->next;
        chunk_free(c);
    }
    for (k = 0; k < p->nsrc; k++)
        close_whole(&p->src[k]);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->data_cv);
    free(p->src);
    free(p->jobs);
    free(p->threads);
    free(p);
}

int fcpy_prefetch_claim(fcpy_prefetch *p, size_t k)
{
    pf_source *s;
    pf_job *j;
    int mine;
    if (p == NULL || k >= p->nsrc)
        return 0;
    s = &p->src[k];
    j = &p->jobs[s->job];
    s->at = s->job;
    s->handed = 0;
    pthread_mutex_lock(&p->mu);
    p->lo = s->job;
    pthread_cond_broadcast(&p->work_cv);
    if (j->piece) {
        /* pieces are the threads' (a failed one: the reader reads whole) */
        pthread_mutex_unlock(&p->mu);
        return s->eligible;
    }
    if (j->state == PF_IDLE)
        j->state = PF_MINE; /* no thread got to it: the reader reads it */
    while (j->state == PF_RUNNING)
        pthread_cond_wait(&p->data_cv, &p->mu);
    mine = j->state == PF_MINE;
    pthread_mutex_unlock(&p->mu);
    return mine ? 0 : 1;
}

/* A piece of source s failed: the rest of s from the file read whole,
 * past the s->handed records already handed out. */
static fc_status read_whole(fcpy_prefetch *p, pf_source *s, fc_record *rec, fc_error *err)
{
    fc_status st;
    uint64_t i;
    pthread_mutex_lock(&p->mu);
    drop_jobs(p, s);
    pthread_mutex_unlock(&p->mu);
    s->whole = (fc_input *)calloc(1, sizeof *s->whole);
    if (s->whole == NULL) {
        fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, s->handed, 0);
        fc_msg_str(&m, "out of memory to read ");
        fc_msg_str(&m, s->path);
        return FC_ERR_NO_MEMORY;
    }
    st = fc_input_open(s->whole, s->path, &p->opt);
    for (i = 0; st == FC_OK && i <= s->handed; i++)
        st = fc_input_next(s->whole, rec);
    if (st != FC_OK && st != FC_END && err != NULL)
        *err = s->whole->err;
    return st;
}

fc_status fcpy_prefetch_next(fcpy_prefetch *p, size_t k, fc_record *rec, fc_error *err)
{
    pf_source *s = &p->src[k];
    pf_job *j = &p->jobs[s->at];
    pf_chunk *c = j->cur;
    fc_status st;
    if (s->whole != NULL) {
        st = fc_input_next(s->whole, rec);
        if (st != FC_OK && st != FC_END && err != NULL)
            *err = s->whole->err;
        return st;
    }
    while (c == NULL || c->taken == c->n) {
        /* the next chunk off the queue (the one used up: its last record
         * has been copied by now), without the lock per record */
        pthread_mutex_lock(&p->mu);
        if (c != NULL) {
            chunk_put(p, c);
            j->cur = c = NULL;
        }
        while (j->head == NULL && !j->ended)
            pthread_cond_wait(&p->data_cv, &p->mu);
        c = j->head;
        if (c == NULL) {
            st = j->status;
            if (j->piece && st == FC_END && s->at + 1 < s->job + s->njobs) {
                /* the next piece */
                j = &p->jobs[++s->at];
                p->lo = s->at;
                pthread_cond_broadcast(&p->work_cv);
                pthread_mutex_unlock(&p->mu);
                continue;
            }
            if (st != FC_END && !j->piece && err != NULL)
                *err = j->err;
            pthread_mutex_unlock(&p->mu);
            if (j->piece && st != FC_END)
                return read_whole(p, s, rec, err);
            return st;
        }
        j->head = c->next;
        if (j->head == NULL)
            j->tail = NULL;
        j->nchunks--;
        j->cur = c;
        /* its thread, waiting for room, woken once half the queue is
         * free, not at each chunk taken: a wake costs two context
         * switches, and the threads of other jobs (waiting too) are not
         * woken for nothing */
        if (j->full_wait && j->nchunks <= QMAX / 2)
            pthread_cond_broadcast(&p->work_cv);
        pthread_mutex_unlock(&p->mu);
    }
    *rec = c->recs[c->taken];
    rec->data = c->data + c->at[c->taken];
    c->taken++;
    s->handed++;
    return FC_OK;
}

void fcpy_prefetch_release(fcpy_prefetch *p, size_t k)
{
    pf_source *s;
    if (p == NULL || k >= p->nsrc)
        return;
    s = &p->src[k];
    pthread_mutex_lock(&p->mu);
    drop_jobs(p, s);
    pthread_mutex_unlock(&p->mu);
    close_whole(s);
}
