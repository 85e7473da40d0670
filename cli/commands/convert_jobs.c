/* A Parquet file's row groups on N threads, for featc convert -j N.
 *
 * Each thread has its own reader over the mapped bytes (fc_parquet_read_open
 * again: the footer is read once per thread), its own fc_arrow_rows and
 * message struct; it takes the next group not yet taken, decodes it
 * (fc_parquet_read_seek, fc_parquet_read_next), fills and serializes each
 * row into the group's slot, and marks the slot done.  The caller's thread
 * hands the slots back in group order, so what it writes, and the first
 * error it reports, are those of the one-thread loop in convert_back.c.
 * A thread stays at most 2 * N groups ahead of the group being handed
 * back (the window), so memory holds at most that many groups' records;
 * N is at most a quarter of the groups (GROUPS_PER_THREAD).
 *
 * Memory (hosted: allocated here): per thread a reader and its batches'
 * arrays, the message struct; per slot of the window the records of one
 * group and their lengths, grown to the largest group and kept. */
#include "convert_jobs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <featc/fc_arrow.h>
#include <featc/fc_codecs.h>
#include <featc/fc_parquet.h>
#include <featc/fc_serialize.h>

#include "commands.h"

/* Records go into chunks of CHUNK bytes (a record larger: a chunk of its
 * size), kept by the slot from group to group: a group's records are
 * never copied to grow a buffer, and once the window has turned the
 * chunks' pages are not new ones (on the virtual machines this was
 * measured on, first touches of fresh pages cost as much as the
 * serialization that filled them). */
#define CHUNK ((size_t)1 << 20)

/* At most one thread per GROUPS_PER_THREAD row groups, so that the window
 * turns: on the 2-core virtual machine measured (the bench tutorial as
 * Parquet, convert -j 2 against -j 1, paired), files of 2 and 4 groups
 * came out at 0.78x (the first touches of each slot's chunks), of 13 and
 * 25 groups at 1.25x and 1.27x. */
#define GROUPS_PER_THREAD 4

typedef struct slot {
    back_group g;
    back_chunk *chunks;
    size_t nchunks, cur, ccap; /* cur: the chunk being filled */
    size_t *lens;
    size_t lcap;
    int done;
} slot;

typedef struct jobs jobs;

typedef struct job {
    jobs *j;
    pthread_t thread;
    fc_codecs *codecs;
    fc_parquet_reader *pq;
    struct ArrowSchema schema;
    fc_arrow_rows *rows;
    void *msg;
} job;

struct jobs {
    const cli_spec *spec;
    uint64_t ngroups, next, handed; /* next: to take; handed: back to the caller */
    size_t window;
    slot *slots;
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

static int nomem(fc_error *err, uint64_t group)
{
    fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, "out of memory for the records of row group ");
    fc_msg_u64(&m, group);
    return FC_ERR_NO_MEMORY;
}

/* A chunk of at least len bytes at t->cur (an empty one there replaced,
 * or one put in before the rest): 0, or -1 out of memory. */
static int new_chunk(slot *t, size_t len)
{
    size_t cap = len > CHUNK ? len : CHUNK;
    unsigned char *p;
    if (t->cur < t->nchunks && t->chunks[t->cur].used == 0) { /* too small: replaced */
        if ((p = (unsigned char *)malloc(cap)) == NULL)
            return -1;
        free(t->chunks[t->cur].p);
        t->chunks[t->cur].p = p;
        t->chunks[t->cur].cap = cap;
        return 0;
    }
    if (t->nchunks == t->ccap) {
        size_t c = t->ccap > 0 ? 2 * t->ccap : 16;
        back_chunk *q = (back_chunk *)realloc(t->chunks, c * sizeof *q);
        if (q == NULL)
            return -1;
        t->chunks = q;
        t->ccap = c;
    }
    if ((p = (unsigned char *)malloc(cap)) == NULL)
        return -1;
    /* at cur, the chunks after it (empty, kept from an earlier group) moved up */
    memmove(&t->chunks[t->cur + 1], &t->chunks[t->cur],
            (t->nchunks - t->cur) * sizeof *t->chunks);
    t->chunks[t->cur].p = p;
    t->chunks[t->cur].cap = cap;
    t->chunks[t->cur].used = 0;
    t->nchunks++;
    return 0;
}

/* Row i's record appended to t: FC_OK, or the status with err set. */
static int put_row(const cli_spec *spec, const void *msg, slot *t, fc_error *err)
{
    size_t len = 0;
    int rc, tries;
    if ((size_t)t->g.nrec == t->lcap) {
        size_t c = t->lcap > 0 ? 2 * t->lcap : 1024;
        size_t *q = (size_t *)realloc(t->lens, c * sizeof *q);
        if (q == NULL)
            return nomem(err, t->g.index);
        t->lens = q;
        t->lcap = c;
    }
    for (tries = 0; tries < 3; tries++) {
        back_chunk *c = t->cur < t->nchunks ? &t->chunks[t->cur] : NULL;
        rc = c == NULL ? FC_ERR_NO_SPACE
             : spec->md != NULL
                 ? fc_ex_serialize(spec->md, msg, FC_OMIT_DEFAULTS, c->p + c->used,
                                   c->cap - c->used, &len, err)
                 : fc_seq_serialize(spec->sd, msg, FC_OMIT_DEFAULTS, c->p + c->used,
                                    c->cap - c->used, &len, err);
        if (rc != FC_ERR_NO_SPACE)
            break;
        if (c != NULL && c->used > 0) { /* the next chunk, if it is large enough */
            t->cur++;
            if (t->cur < t->nchunks && t->chunks[t->cur].cap >= len)
                continue;
        }
        if (new_chunk(t, len) != 0)
            return nomem(err, t->g.index);
    }
    if (rc != FC_OK)
        return rc;
    t->lens[t->g.nrec++] = len;
    t->chunks[t->cur].used += len;
    return FC_OK;
}

/* Group g into slot t (emptied by the caller's thread). */
static void do_group(job *w, uint64_t g, slot *t)
{
    struct ArrowArray a;
    int64_t i;
    int s;
    t->g.index = g;
    t->g.nrec = 0;
    t->g.status = FC_OK;
    t->g.at_row = -1;
    for (t->cur = 0; t->cur < t->nchunks; t->cur++)
        t->chunks[t->cur].used = 0;
    t->cur = 0;
    fc_error_clear(&t->g.err);
    s = fc_parquet_read_seek(w->pq, g);
    if (s == FC_OK)
        s = fc_parquet_read_next(w->pq, &a, &t->g.err);
    t->g.offset = fc_parquet_read_offset(w->pq);
    if (s != FC_OK) {
        t->g.status = s == FC_END ? FC_ERR_ARG : s; /* (a group past the end: not asked) */
        return;
    }
    for (i = 0; i < a.length; i++) {
        s = fc_arrow_rows_get(w->rows, &w->schema, &a, i, w->msg, &t->g.err);
        if (s == FC_OK)
            s = put_row(w->j->spec, w->msg, t, &t->g.err);
        if (s != FC_OK) {
            t->g.status = s;
            t->g.at_row = i;
            break;
        }
    }
    a.release(&a);
}

static void *job_main(void *arg)
{
    job *w = (job *)arg;
    jobs *j = w->j;
    pthread_mutex_lock(&j->mu);
    for (;;) {
        uint64_t g;
        slot *t;
        while (!j->stop && j->next < j->ngroups && j->next >= j->handed + j->window)
            pthread_cond_wait(&j->cv, &j->mu);
        if (j->stop || j->next >= j->ngroups)
            break;
        g = j->next++;
        t = &j->slots[g % j->window];
        pthread_mutex_unlock(&j->mu);
        do_group(w, g, t);
        pthread_mutex_lock(&j->mu);
        t->done = 1;
        pthread_cond_broadcast(&j->cv);
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

static int job_open(job *w, const void *data, size_t len, fc_error *err)
{
    fc_parquet_read_options ro;
    const cli_spec *spec = w->j->spec;
    int s;
    memset(&ro, 0, sizeof ro);
    ro.decompress = fc_codecs_decompress;
    ro.decompress_ctx = w->codecs = fc_codecs_new(); /* (NULL: a context per page) */
    if ((w->msg = malloc(spec->size > 0 ? spec->size : 1)) == NULL)
        return nomem(err, 0);
    if ((s = fc_parquet_read_open(&w->pq, data, len, &ro, err)) != FC_OK ||
        (s = fc_parquet_read_schema(w->pq, &w->schema, err)) != FC_OK)
        return s;
    return fc_arrow_rows_open(&w->rows, spec->md, spec->sd, &w->schema, err);
}

static void job_close(job *w)
{
    fc_arrow_rows_close(w->rows);
    if (w->schema.release != NULL)
        w->schema.release(&w->schema);
    fc_parquet_read_close(w->pq);
    fc_codecs_free(w->codecs);
    free(w->msg);
}

int back_jobs_run(const cli_spec *spec, const void *data, size_t len, uint64_t ngroups,
                  unsigned jobs_n, back_group_fn fn, void *ctx)
{
    fc_error err_open; /* (a reader that cannot open: the caller's loop says why) */
    jobs j;
    job *ws;
    unsigned n = jobs_n > 0 ? jobs_n : 1, started = 0, i;
    uint64_t g;
    int rc = EXIT_OK, s = FC_OK;
    if ((uint64_t)n > ngroups / GROUPS_PER_THREAD)
        n = (unsigned)(ngroups / GROUPS_PER_THREAD);
    if (n < 2)
        return -1; /* one thread: the caller's loop, which buffers nothing */
    memset(&j, 0, sizeof j);
    j.spec = spec;
    j.ngroups = ngroups;
    j.window = 2 * (size_t)n;
    j.slots = (slot *)calloc(j.window, sizeof *j.slots);
    ws = (job *)calloc(n, sizeof *ws);
    if (j.slots == NULL || ws == NULL) {
        free(j.slots);
        free(ws);
        return -1;
    }
    pthread_mutex_init(&j.mu, NULL);
    pthread_cond_init(&j.cv, NULL);
    for (i = 0; i < n && s == FC_OK; i++) {
        ws[i].j = &j;
        s = job_open(&ws[i], data, len, &err_open);
    }
    for (i = 0; i < n && s == FC_OK; i++) {
        if (pthread_create(&ws[i].thread, NULL, job_main, &ws[i]) != 0)
            break;
        started++;
    }
    if (s == FC_OK && started == 0)
        s = FC_ERR_NO_MEMORY; /* no thread: the caller's loop instead */
    for (g = 0; s == FC_OK && g < ngroups && rc == EXIT_OK; g++) {
        slot *t = &j.slots[g % j.window];
        pthread_mutex_lock(&j.mu);
        while (!t->done)
            pthread_cond_wait(&j.cv, &j.mu);
        pthread_mutex_unlock(&j.mu);
        t->g.chunks = t->chunks;
        t->g.lens = t->lens;
        rc = fn(ctx, &t->g);
        pthread_mutex_lock(&j.mu);
        t->done = 0;
        j.handed = g + 1;
        if (rc != EXIT_OK)
            j.stop = 1;
        pthread_cond_broadcast(&j.cv);
        pthread_mutex_unlock(&j.mu);
    }
    pthread_mutex_lock(&j.mu);
    j.stop = 1;
    pthread_cond_broadcast(&j.cv);
    pthread_mutex_unlock(&j.mu);
    for (i = 0; i < started; i++)
        pthread_join(ws[i].thread, NULL);
    for (i = 0; i < n; i++)
        job_close(&ws[i]);
    for (i = 0; i < j.window; i++) {
        size_t c;
        for (c = 0; c < j.slots[i].nchunks; c++)
            free(j.slots[i].chunks[c].p);
        free(j.slots[i].chunks);
        free(j.slots[i].lens);
    }
    free(j.slots);
    free(ws);
    pthread_mutex_destroy(&j.mu);
    pthread_cond_destroy(&j.cv);
    return s != FC_OK ? -1 : rc;
}
