/* A Parquet file's row groups on N threads, for featc convert -j N.
 *
 * Each thread has its own reader over the mapped bytes (fc_parquet_read_open
 * again: the footer is read once per thread), its own fc_arrow_rows and
 * message struct.  The work is cut into pieces: a row group each when the
 * file has GROUPS_PER_THREAD groups a thread or more, else equal shares of
 * each group's rows, about PIECES_PER_THREAD a thread in all (so a file of
 * one group keeps every thread busy).  A thread takes the next piece not
 * yet taken.  The first to take a piece of a group decodes the group
 * (fc_parquet_read_seek, fc_parquet_read_next, its columns on N threads
 * of the reader's own); the others wait for its arrays, which every piece of the group reads and the last one done
 * releases (the arrays own their memory, so that reader goes on to another
 * group meanwhile).  The thread fills and serializes each row of its piece
 * into the piece's slot and marks the slot done.  The caller's thread hands
 * the slots back in order, so what it writes, and the first error it
 * reports, are those of the one-thread loop in convert_back.c.  A thread
 * stays at most 2 * N pieces ahead of the piece being handed back (the
 * window), so memory holds at most that many pieces' records.
 *
 * Memory (hosted: allocated here): per thread a reader and the message
 * struct; the arrays of the groups the window's pieces are in; per slot of
 * the window the records of one piece and their lengths, in chunks kept
 * from piece to piece. */
#include "convert_jobs.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <featc/fc_arrow.h>
#include <featc/fc_codecs.h>
#include <featc/fc_input.h>
#include <featc/fc_parquet.h>
#include <featc/fc_serialize.h>

#include "commands.h"

/* Records go into chunks of CHUNK bytes (a record larger: a chunk of its
 * size), kept by the slot from piece to piece: a piece's records are
 * never copied to grow a buffer, and once the window has turned the
 * chunks' pages are not new ones.  On the virtual machines this was
 * measured on, first touches of fresh pages cost as much as the
 * serialization that filled them, so a chunk is a big buffer
 * (fc_huge_alloc: on Linux one fault a chunk where the kernel gives huge
 * pages). */
#define CHUNK ((size_t)2 << 20)

/* Whole row groups as pieces from GROUPS_PER_THREAD groups a thread;
 * below, about PIECES_PER_THREAD pieces a thread (the window is two a
 * thread, so that it turns), of at least MIN_PIECE_ROWS rows. */
#define GROUPS_PER_THREAD 4
#define PIECES_PER_THREAD 4
#define MIN_PIECE_ROWS 64

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

/* A row group decoded for the pieces in the window: the pieces of group g
 * use entry g % (window + 1) (the window's pieces span at most window + 1
 * groups, one after the other, and a group's entry is free again once its
 * last piece is done, before any piece of the group that would share it
 * can be taken). */
enum { G_FREE, G_DECODING, G_READY };
typedef struct group_arrays {
    int state;
    uint64_t g;
    struct ArrowArray a; /* G_READY and status FC_OK */
    int status;
    fc_error err;
    uint64_t offset;     /* the reader's after the group */
    uint64_t left;       /* its pieces not done */
} group_arrays;

struct jobs {
    const cli_spec *spec;
    uint64_t npieces, next, handed; /* next: to take; handed: back to the caller */
    uint64_t per_group;             /* pieces a group, each an equal share of its rows */
    unsigned nthreads;              /* N */
    size_t window;
    slot *slots;
    group_arrays *groups; /* window + 1 */
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

static void chunk_free(back_chunk *c)
{
    fc_huge_free(c->p, c->cap);
    c->p = NULL;
}

/* A chunk of at least len bytes at t->cur (an empty one there replaced,
 * or one put in before the rest): 0, or -1 out of memory. */
static int new_chunk(slot *t, size_t len)
{
    size_t cap = len > CHUNK ? len : CHUNK;
    unsigned char *p;
    if (t->cur < t->nchunks && t->chunks[t->cur].used == 0) { /* too small: replaced */
        if ((p = (unsigned char *)fc_huge_alloc(&cap)) == NULL)
            return -1;
        chunk_free(&t->chunks[t->cur]);
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
    if ((p = (unsigned char *)fc_huge_alloc(&cap)) == NULL)
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

/* A row that fc_arrow_rows_serialize may write straight into a chunk. */
typedef struct direct_row {
    fc_arrow_rows *rows;
    const struct ArrowSchema *schema;
    const struct ArrowArray *a;
    int64_t i;
} direct_row;

/* Row i's record appended to t: FC_OK, or the status with err set.  From
 * d when given (*taken 0, nothing appended, for a row it does not take),
 * else from msg. */
static int put_row(const cli_spec *spec, const void *msg, const direct_row *d, int *taken,
                   slot *t, fc_error *err)
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
        if (d != NULL) {
            len = fc_arrow_rows_serialize(d->rows, d->schema, d->a, d->i,
                                          c != NULL ? c->p + c->used : NULL,
                                          c != NULL ? c->cap - c->used : 0);
            if (len == 0) {
                *taken = 0;
                return FC_OK;
            }
            rc = c != NULL && len <= c->cap - c->used ? FC_OK : FC_ERR_NO_SPACE;
        } else {
            rc = c == NULL ? FC_ERR_NO_SPACE
                 : spec->md != NULL
                     ? fc_ex_serialize(spec->md, msg, FC_OMIT_DEFAULTS, c->p + c->used,
                                       c->cap - c->used, &len, err)
                     : fc_seq_serialize(spec->sd, msg, FC_OMIT_DEFAULTS, c->p + c->used,
                                        c->cap - c->used, &len, err);
        }
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
    if (taken != NULL)
        *taken = 1;
    t->lens[t->g.nrec++] = len;
    t->chunks[t->cur].used += len;
    return FC_OK;
}

/* The arrays of group g, decoded by w unless another thread has them or
 * is decoding them (then waited for), under j->mu held. */
static group_arrays *group_get(job *w, uint64_t g)
{
    jobs *j = w->j;
    group_arrays *e = &j->groups[g % (j->window + 1)];
    if (e->state == G_FREE) {
        int s;
        e->state = G_DECODING;
        e->g = g;
        e->left = j->per_group;
        pthread_mutex_unlock(&j->mu);
        fc_error_clear(&e->err);
        s = fc_parquet_read_seek(w->pq, g);
        if (s == FC_OK)
            s = fc_parquet_read_next(w->pq, &e->a, &e->err);
        if (s != FC_OK)
            e->a.release = NULL;
        e->status = s == FC_END ? FC_ERR_ARG : s; /* (a group past the end: not asked) */
        e->offset = fc_parquet_read_offset(w->pq);
        pthread_mutex_lock(&j->mu);
        e->state = G_READY;
        pthread_cond_broadcast(&j->cv);
    }
    while (e->state == G_DECODING)
        pthread_cond_wait(&j->cv, &j->mu);
    return e;
}

/* A piece of e's group done: the arrays released after its last. */
static void group_put(group_arrays *e)
{
    if (--e->left > 0)
        return;
    if (e->a.release != NULL)
        e->a.release(&e->a);
    e->state = G_FREE;
}

/* Piece p into slot t (emptied by the caller's thread), its group's
 * arrays e (read only). */
static void do_piece(job *w, uint64_t p, const group_arrays *e, slot *t)
{
    const jobs *j = w->j;
    const struct ArrowArray *a = &e->a;
    uint64_t q = p % j->per_group;
    int64_t i, lo, hi, base, extra;
    int s;
    t->g.index = e->g;
    t->g.nrec = 0;
    t->g.status = FC_OK;
    t->g.at_row = -1;
    t->g.first_row = 0;
    t->g.offset = e->offset;
    for (t->cur = 0; t->cur < t->nchunks; t->cur++)
        t->chunks[t->cur].used = 0;
    t->cur = 0;
    fc_error_clear(&t->g.err);
    if (e->status != FC_OK) {
        t->g.status = e->status;
        t->g.err = e->err;
        return;
    }
    /* rows [lo, hi) of the group: its piece of the rows the group has */
    base = a->length / (int64_t)j->per_group;
    extra = a->length % (int64_t)j->per_group;
    lo = base * (int64_t)q + ((int64_t)q < extra ? (int64_t)q : extra);
    hi = lo + base + ((int64_t)q < extra);
    t->g.first_row = lo;
    for (i = lo; i < hi; i++) {
        direct_row d;
        int taken = 0;
        d.rows = w->rows;
        d.schema = &w->schema;
        d.a = a;
        d.i = i;
        s = put_row(j->spec, NULL, &d, &taken, t, &t->g.err);
        if (s == FC_OK && !taken &&
            (s = fc_arrow_rows_get(w->rows, &w->schema, a, i, w->msg, &t->g.err)) == FC_OK)
            s = put_row(j->spec, w->msg, NULL, NULL, t, &t->g.err);
        if (s != FC_OK) {
            t->g.status = s;
            t->g.at_row = i;
            break;
        }
    }
}

static void *job_main(void *arg)
{
    job *w = (job *)arg;
    jobs *j = w->j;
    pthread_mutex_lock(&j->mu);
    for (;;) {
        uint64_t p;
        slot *t;
        group_arrays *e;
        while (!j->stop && j->next < j->npieces && j->next >= j->handed + j->window)
            pthread_cond_wait(&j->cv, &j->mu);
        if (j->stop || j->next >= j->npieces)
            break;
        p = j->next++;
        t = &j->slots[p % j->window];
        e = group_get(w, p / j->per_group);
        pthread_mutex_unlock(&j->mu);
        do_piece(w, p, e, t);
        pthread_mutex_lock(&j->mu);
        group_put(e);
        t->done = 1;
        pthread_cond_broadcast(&j->cv);
    }
    pthread_mutex_unlock(&j->mu);
    return NULL;
}

static void *codecs_new(void)
{
    return fc_codecs_new();
}

static void codecs_free(void *c)
{
    fc_codecs_free((fc_codecs *)c);
}

static int job_open(job *w, const void *data, size_t len, fc_error *err)
{
    fc_parquet_read_options ro;
    const cli_spec *spec = w->j->spec;
    int s;
    memset(&ro, 0, sizeof ro);
    ro.decompress = fc_codecs_decompress;
    ro.decompress_ctx = w->codecs = fc_codecs_new(); /* (NULL: a context per page) */
    /* pieces of groups: while a thread decodes a group, the others mostly
     * wait for its arrays, so its reader decodes the group's columns on
     * that many threads of its own (opt.threads) */
    ro.threads = w->j->per_group > 1 ? w->j->nthreads : 1;
    ro.decompress_ctx_new = codecs_new;
    ro.decompress_ctx_free = codecs_free;
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

/* Pieces a group for n threads, from the groups' average rows. */
static uint64_t pieces_per_group(uint64_t ngroups, uint64_t rows, unsigned n)
{
    uint64_t avg, per;
    if (ngroups >= (uint64_t)n * GROUPS_PER_THREAD)
        return 1;
    avg = rows / ngroups;
    per = ((uint64_t)n * PIECES_PER_THREAD + ngroups - 1) / ngroups;
    if (avg / per < MIN_PIECE_ROWS)
        per = avg / MIN_PIECE_ROWS;
    return per > 1 ? per : 1;
}

int back_jobs_run(const cli_spec *spec, const void *data, size_t len, uint64_t ngroups,
                  uint64_t rows, unsigned jobs_n, back_group_fn fn, void *ctx)
{
    fc_error err_open; /* (a reader that cannot open: the caller's loop says why) */
    jobs j;
    job *ws;
    unsigned n = jobs_n > 0 ? jobs_n : 1, started = 0, i;
    uint64_t p;
    int rc = EXIT_OK, s = FC_OK;
    if (n < 2 || ngroups == 0)
        return -1; /* one thread: the caller's loop, which buffers nothing */
    memset(&j, 0, sizeof j);
    j.per_group = pieces_per_group(ngroups, rows, n);
    j.npieces = ngroups * j.per_group; /* (per_group > 1 only below 4 n groups) */
    if (j.npieces < 2)
        return -1;
    if ((uint64_t)n > j.npieces)
        n = (unsigned)j.npieces;
    j.nthreads = n;
    j.spec = spec;
    j.window = 2 * (size_t)n;
    j.slots = (slot *)calloc(j.window, sizeof *j.slots);
    j.groups = (group_arrays *)calloc(j.window + 1, sizeof *j.groups);
    ws = (job *)calloc(n, sizeof *ws);
    if (j.slots == NULL || j.groups == NULL || ws == NULL) {
        free(j.slots);
        free(j.groups);
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
    for (p = 0; s == FC_OK && p < j.npieces && rc == EXIT_OK; p++) {
        slot *t = &j.slots[p % j.window];
        pthread_mutex_lock(&j.mu);
        while (!t->done)
            pthread_cond_wait(&j.cv, &j.mu);
        pthread_mutex_unlock(&j.mu);
        t->g.chunks = t->chunks;
        t->g.lens = t->lens;
        rc = fn(ctx, &t->g);
        pthread_mutex_lock(&j.mu);
        t->done = 0;
        j.handed = p + 1;
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
            chunk_free(&j.slots[i].chunks[c]);
        free(j.slots[i].chunks);
        free(j.slots[i].lens);
    }
    for (i = 0; i <= j.window; i++) /* (groups of pieces never taken or done) */
        if (j.groups[i].state == G_READY && j.groups[i].a.release != NULL)
            j.groups[i].a.release(&j.groups[i].a);
    free(j.slots);
    free(j.groups);
    free(ws);
    pthread_mutex_destroy(&j.mu);
    pthread_cond_destroy(&j.cv);
    return s != FC_OK ? -1 : rc;
}
