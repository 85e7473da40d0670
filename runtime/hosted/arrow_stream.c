/* An ArrowArrayStream over TFRecord files (fc_arrow.h): get_next reads up to
 * batch_size records with fc_input (the files in turn, each with the
 * options' part, compression and CRC policy), parses them as a batch into
 * a new block, and exports it (fc_arrow_export), which frees the block
 * when the consumer releases the batch.  With one thread a batch read
 * whole from one file (fc_input_gather) is parsed where the records lie;
 * the others' records are copied into the slot.
 *
 * With hooks->threads > 1 the batches are parsed and exported on that many
 * worker threads while the caller's thread reads the next ones: up to
 * 2 x threads batches are in flight, each in a slot of its own, and
 * get_next hands them out in file order, with exactly the outcomes (and
 * errors) of one thread. */
#define _DEFAULT_SOURCE 1 /* madvise's MADV_HUGEPAGE (Linux) */
#include "featc/fc_arrow.h"
#include "featc/fc_input.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#define ERROR_SIZE (FC_ERROR_MSG_SIZE + 1100)

enum { S_FREE, S_READY, S_BUSY, S_DONE };

/* One batch in flight: its records (copied, or views into the input),
 * then its outcome. */
typedef struct slot {
    unsigned char *data;   /* the records' bytes: heap, or (big) a big buffer */
    int big;
    size_t cap, n;
    fc_bytes *views;
    size_t *at;
    uint64_t *index, *offset;
    size_t *file;          /* which path each record came from */
    int state;
    int input_rc;          /* 0, or the input error met after the records (EIO, ENOMEM) */
    char input_error[ERROR_SIZE];
    int rc;                /* the batch's: 0 with arr, or EINVAL / ENOMEM with error */
    struct ArrowArray arr;
    char error[ERROR_SIZE];
} slot;

typedef struct block_cache block_cache; /* (the batches' blocks: below) */

/* A worker's scratch: the columns and the message struct. */
typedef struct worker {
    struct stream_priv *p;
    unsigned index;
    fc_column *cols;
    void *scratch;
    pthread_t thread;
    int started;
} worker;

typedef struct stream_priv {
    const fc_message_desc *md;
    const fc_seq_desc *sd;
    unsigned flags;
    char **paths;
    size_t npaths, next;   /* next: the file to open */
    int open;
    fc_input in;
    fc_input_options opt;
    size_t bsize;
    size_t ncols;
    fc_arrow_stream_hooks hooks;
    int input_done;        /* every file read */
    fc_record *recs;       /* a run of fc_input_gather's records */
    slot *slots;
    size_t nslots;
    uint64_t gathered, handed; /* slots filled, slots handed out (in order) */
    worker *workers;
    unsigned nworkers;     /* 0: the caller's thread parses */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    block_cache *cache;    /* NULL: every block malloc's */
    int quit;
    int pending;           /* an input error met after a batch's records: the next call's */
    int pending_rc;
    char pending_error[ERROR_SIZE];
    char error[ERROR_SIZE];
} stream_priv;

static void say(char *buf, const char *path, uint64_t record, uint64_t offset,
                const char *message)
{
    if (path != NULL && record != FC_NO_INDEX)
        snprintf(buf, ERROR_SIZE, "record %llu (offset %llu of %s): %s",
                 (unsigned long long)record, (unsigned long long)offset, path, message);
    else if (path != NULL)
        snprintf(buf, ERROR_SIZE, "%s: %s", path, message);
    else
        snprintf(buf, ERROR_SIZE, "%s", message);
}

static int stream_schema(struct ArrowArrayStream *s, struct ArrowSchema *out)
{
    stream_priv *p = (stream_priv *)s->private_data;
    fc_error err;
    fc_error_clear(&err);
    if (fc_arrow_schema(p->md, p->sd, p->flags, out, &err) != FC_OK) {
        say(p->error, NULL, FC_NO_INDEX, FC_NO_INDEX, err.message);
        return err.status == FC_ERR_NO_MEMORY ? ENOMEM : EINVAL;
    }
    return 0;
}

/* ------------------------------------------------------------ reading */

/* A slot's records from HUGE_FROM bytes on live in a big buffer
 * (fc_huge_alloc: a map of huge pages on Linux): a batch's records are
 * megabytes, touched first page by page, and a virtual machine's page
 * faults can cost more than the parse (on the bench host the first
 * batch's 2,800 faults were a third of a 20 MB convert; glibc's heap, where
 * convert keeps its blocks, got no huge pages).  Below it, the heap.
 * HUGE_FROM is one huge page: at 4 MiB a sequence convert's 3.9 MB of
 * records a batch stayed on the heap once the slot grew in runs (doubling
 * from 256 KiB lands on 4 MiB, not past it), and its page faults went
 * from 4,082 to 7,656. */
#define HUGE_FROM ((size_t)2 << 20)

static void data_free(slot *b)
{
    if (b->big)
        fc_huge_free(b->data, b->cap);
    else
        free(b->data);
    b->data = NULL;
    b->big = 0;
}

/* Room for k more bytes of records; whole: the batch's bytes at the size
 * of its records so far (0: not known), so that a slot that will be big
 * starts big, not in doublings of the heap (a wide convert's first batch,
 * 7 MB: 650 page faults in the copy, a third of the run's). */
static int reserve(slot *b, size_t used, size_t k, size_t whole)
{
    size_t want;
    unsigned char *d;
    if (k <= b->cap - used)
        return 0;
    want = b->cap * 2 > used + k ? b->cap * 2 : used + k;
    if (whole >= HUGE_FROM && want < whole)
        want = whole;
    if (want >= HUGE_FROM && b->big) {
        if ((d = (unsigned char *)fc_huge_grow(b->data, b->cap, &want)) == NULL)
            return -1;
    } else if (want >= HUGE_FROM) {
        if ((d = (unsigned char *)fc_huge_alloc(&want)) == NULL)
            return -1;
        if (used > 0)
            memcpy(d, b->data, used);
        data_free(b);
        b->big = 1;
    } else if ((d = (unsigned char *)realloc(b->data, want > 0 ? want : 1)) == NULL) {
        return -1;
    }
    b->data = d;
    b->cap = want;
    return 0;
}

/* Record rec as the n-th of slot b: its size, number, offset and file
 * (where its bytes are, b->at or b->views[n].data, is the caller's). */
static void place(const stream_priv *p, slot *b, size_t n, const fc_record *rec)
{
    b->views[n].size = rec->length;
    b->index[n] = rec->index;
    b->offset[n] = rec->offset;
    b->file[n] = p->next - 1;
}

/* Whether run[0 .. k) lie in order in one buffer (as fc_input_gather
 * leaves them, their frames between). */
static int in_order(const fc_record *run, size_t k)
{
    const unsigned char *first = run[0].data, *end = first;
    size_t i;
    for (i = 0; i < k; i++) {
        if (run[i].data == NULL || run[i].data < end ||
            run[i].length > (size_t)-1 - (size_t)(run[i].data - first))
            return 0;
        end = run[i].data + run[i].length;
    }
    return 1;
}

/* The records of run[0 .. k) copied into slot b after its *n: in one
 * memcpy when they lie in order in one buffer, else each as a run of its
 * own.  0, or -1 when there was no memory for them (b->input_error says
 * so). */
static int keep_run(stream_priv *p, slot *b, size_t *n, size_t *used, const fc_record *run,
                    size_t k)
{
    size_t i, span, each;
    if (k > 1 && !in_order(run, k)) {
        for (i = 0; i < k; i++)
            if (keep_run(p, b, n, used, &run[i], 1) != 0)
                return -1;
        return 0;
    }
    span = k == 1 ? run[0].length
                  : (size_t)(run[k - 1].data + run[k - 1].length - run[0].data);
    each = (*used + span) / (*n + k);
    if (reserve(b, *used, span, each <= SIZE_MAX / p->bsize ? each * p->bsize : 0) != 0) {
        say(b->input_error, p->paths[p->next - 1], run[0].index, run[0].offset,
            "out of memory for the records of a batch");
        b->input_rc = ENOMEM;
        return -1;
    }
    if (span > 0)
        memcpy(b->data + *used, run[0].data, span);
    for (i = 0; i < k; i++, ++*n) {
        b->at[*n] = *used + (k == 1 ? 0 : (size_t)(run[i].data - run[0].data));
        place(p, b, *n, &run[i]);
    }
    *used += span;
    return 0;
}

/* Up to bsize records into slot b (b->n of them), read in runs by
 * fc_input_gather.  With no workers, a batch that one run gives whole is
 * left where it lies: the slot's views are the records in the input's
 * buffer, parsed before the next read (which is what keeps them valid);
 * every other run is copied into the slot.  An input error after some
 * records ends the batch there and comes after it (b->input_rc); one
 * before any record is the slot's only outcome (b->n 0).  The read goes on
 * with the next file. */
static void gather(stream_priv *p, slot *b)
{
    size_t n = 0, used = 0, i;
    b->input_rc = 0;
    while (n < p->bsize) {
        fc_status st;
        size_t k = 0;
        if (!p->open) {
            if (p->next >= p->npaths) {
                p->input_done = 1;
                break;
            }
            if (fc_input_open(&p->in, p->paths[p->next], &p->opt) != FC_OK) {
                say(b->input_error, p->paths[p->next], FC_NO_INDEX, FC_NO_INDEX,
                    p->in.err.message);
                fc_input_close(&p->in);
                p->next++;
                b->input_rc = EIO;
                break;
            }
            p->open = 1;
            p->next++;
        }
        st = fc_input_gather(&p->in, p->recs, p->bsize - n, &k);
        if (p->hooks.record != NULL && k > 0)
            p->hooks.record(p->hooks.ctx, fc_reader_raw_offset(&p->in.reader));
        if (n == 0 && k == p->bsize && p->nworkers == 0) {
            for (i = 0; i < k; i++) {
                b->views[i].data = p->recs[i].data;
                place(p, b, i, &p->recs[i]);
            }
            b->n = k; /* (views in place: nothing copied) */
            return;
        }
        if (k > 0 && keep_run(p, b, &n, &used, p->recs, k) != 0)
            break;
        if (st == FC_END) {
            if (p->hooks.file_done != NULL)
                p->hooks.file_done(p->hooks.ctx, p->paths[p->next - 1],
                                   fc_reader_raw_offset(&p->in.reader));
            fc_input_close(&p->in);
            p->open = 0;
            continue;
        }
        if (st != FC_OK) {
            say(b->input_error, p->paths[p->next - 1], FC_NO_INDEX, FC_NO_INDEX,
                p->in.err.message);
            fc_input_close(&p->in);
            p->open = 0;
            b->input_rc = EIO;
            break;
        }
    }
    for (i = 0; i < n; i++)
        b->views[i].data = b->data + b->at[i];
    b->n = n;
}

/* ------------------------------------------------------------ parsing */

/* Arrow's layouts: VarLen as row splits, rows packed */
#define FORMS (FC_BATCH_RAGGED | FC_BATCH_PACKED)

/* ------------------------------------------------------------ blocks */

/* A batch's block (its columns, bound at the batch's size) has a header of
 * FC_ARROW_ALIGN bytes before it, and once its batch is released it waits
 * in the stream's cache (up to SPARE of them) for a later batch.  One of
 * HUGE_FROM bytes or more is a map of huge pages, a smaller one malloc's.
 * From the heap, a wide convert's blocks (2.3 MB each) were first touched
 * 4 KiB at a time, 980 of its 1,459 page faults; and with threads a
 * tutorial convert's small blocks, freed into the parse threads' arenas
 * and trimmed, were faulted in again batch after batch (a third of the
 * threads' samples).  (Before, a malloc'd block was advised huge pages for
 * the whole huge pages inside it: a 20 MB sequence convert's faults went
 * from 3,900 to 2,078.)  The cache lives while the stream or a block of it
 * does (refs); its spares go with the stream (stream_release), and none is
 * kept after. */
#define SPARE 8

typedef struct spare_block {
    unsigned char *m;
    size_t cap;
    int big;
} spare_block;

struct block_cache {
    pthread_mutex_t mu;
    unsigned refs;   /* the stream (while alive) and each block out */
    int alive;
    unsigned nspare;
    spare_block spare[SPARE];
};

typedef struct block_head {
    block_cache *cache; /* NULL: no cache (malloc's, freed) */
    spare_block at;     /* the block's own memory */
} block_head;

#define HEAD FC_ARROW_ALIGN

typedef char head_fits[sizeof(block_head) <= HEAD ? 1 : -1];

static void spare_free(const spare_block *b)
{
    if (b->big)
        fc_huge_free(b->m, b->cap);
    else
        free(b->m);
}

static void cache_unref(block_cache *c)
{
    int last;
    pthread_mutex_lock(&c->mu);
    last = --c->refs == 0;
    pthread_mutex_unlock(&c->mu);
    if (!last)
        return;
    pthread_mutex_destroy(&c->mu); /* (no spare: the stream's release took them) */
    free(c);
}

/* A block of need bytes (FC_ARROW_ALIGN-aligned), or NULL. */
static void *block_take(block_cache *c, size_t need)
{
    spare_block b;
    block_head *h;
    unsigned i;
    int found = 0;
    if (need == 0 || need > SIZE_MAX - HEAD - HUGE_FROM)
        return NULL;
    b.cap = need + HEAD;
    if (c != NULL) {
        pthread_mutex_lock(&c->mu);
        for (i = 0; i < c->nspare && !found; i++)
            if (c->spare[i].cap >= b.cap) {
                b = c->spare[i];
                c->spare[i] = c->spare[--c->nspare];
                found = 1;
            }
        c->refs++;
        pthread_mutex_unlock(&c->mu);
    }
    if (!found) {
        void *q = NULL;
        b.big = b.cap >= HUGE_FROM;
        if (b.big)
            q = fc_huge_alloc(&b.cap);
        else if (posix_memalign(&q, FC_ARROW_ALIGN, b.cap) != 0)
            q = NULL;
        if (q == NULL) {
            if (c != NULL)
                cache_unref(c);
            return NULL;
        }
        b.m = (unsigned char *)q;
    }
    h = (block_head *)(void *)b.m;
    h->cache = c;
    h->at = b;
    return b.m + HEAD;
}

/* The release of a block (fc_arrow_export's free_fn), on any thread. */
static void free_block(void *blk)
{
    block_head *h = (block_head *)(void *)((unsigned char *)blk - HEAD);
    block_cache *c = h->cache;
    spare_block b = h->at;
    int kept = 0;
    if (c != NULL) {
        pthread_mutex_lock(&c->mu);
        if (c->alive && c->nspare < SPARE) {
            c->spare[c->nspare++] = b;
            kept = 1;
        }
        pthread_mutex_unlock(&c->mu);
    }
    if (!kept)
        spare_free(&b);
    if (c != NULL)
        cache_unref(c);
}

/* The hooks' parse for one worker, as an fc_record_parse_fn. */
typedef struct {
    const stream_priv *p;
    unsigned index;
} hooked_ctx;

static int hooked_parse(void *ctx, void *msg, const void *data, size_t size, fc_error *err)
{
    const hooked_ctx *h = (const hooked_ctx *)ctx;
    return h->p->hooks.parse(h->p->hooks.ctx, h->index, msg, data, size, err);
}

/* The batch through the hooks' parse: each record parsed into the scratch
 * struct, then appended column by column (fc_batch_parse_each); with the
 * hooks' lookup, the records the direct path covers first straight into
 * the columns (fc_batch_parse_each_direct, or for a SequenceExample
 * fc_batch_parse_each_seq_direct). */
static int parse_hooked(stream_priv *p, worker *w, slot *b, fc_error *err)
{
    hooked_ctx h;
    h.p = p;
    h.index = w->index;
    if (p->md != NULL && p->hooks.lookup != NULL)
        return fc_batch_parse_each_direct(p->md, p->hooks.lookup, p->hooks.lookup_ctx,
                                          hooked_parse, &h, w->cols, w->scratch, b->views, b->n,
                                          err);
    if (p->sd != NULL && p->hooks.lookup != NULL)
        return fc_batch_parse_each_seq_direct(p->sd, hooked_parse, &h, w->cols, w->scratch,
                                              b->views, b->n, err);
    return p->md != NULL
               ? fc_batch_parse_each(p->md, hooked_parse, &h, w->cols, w->scratch, b->views,
                                     b->n, err)
               : fc_batch_parse_each_seq(p->sd, hooked_parse, &h, w->cols, w->scratch,
                                         b->views, b->n, err);
}

/* Slot b's records parsed and exported with w's scratch: b->rc and b->arr
 * or b->error. */
static void parse_slot(stream_priv *p, worker *w, slot *b)
{
    size_t n = b->n, need;
    void *block = NULL;
    fc_error err;
    int rc;
    need = p->md != NULL ? fc_batch_bind(p->md, w->cols, n, FORMS, NULL, 0)
                         : fc_batch_bind_seq(p->sd, w->cols, n, FORMS, NULL, 0);
    if ((block = block_take(p->cache, need)) == NULL) {
        say(b->error, NULL, FC_NO_INDEX, FC_NO_INDEX, "out of memory for a batch");
        b->rc = ENOMEM;
        return;
    }
    if (p->md != NULL)
        fc_batch_bind(p->md, w->cols, n, FORMS, block, need);
    else
        fc_batch_bind_seq(p->sd, w->cols, n, FORMS, block, need);
    fc_error_clear(&err);
    if (p->hooks.parse != NULL)
        rc = parse_hooked(p, w, b, &err);
    else
        rc = p->md != NULL ? fc_batch_parse(p->md, w->cols, w->scratch, b->views, n, &err)
                           : fc_batch_parse_seq(p->sd, w->cols, w->scratch, b->views, n, &err);
    if (rc != FC_OK) {
        size_t r = err.record < n ? (size_t)err.record : 0;
        say(b->error, p->paths[b->file[r]], err.record < n ? b->index[r] : FC_NO_INDEX,
            b->offset[r], err.message);
        free_block(block);
        b->rc = EINVAL;
        return;
    }
    rc = fc_arrow_export(p->md, p->sd, p->flags, w->cols, n, block, free_block, &b->arr, NULL,
                         &err);
    if (rc != FC_OK) {
        say(b->error, NULL, FC_NO_INDEX, FC_NO_INDEX, err.message);
        free_block(block);
        b->rc = rc == FC_ERR_NO_MEMORY ? ENOMEM : EINVAL;
        return;
    }
    b->rc = 0;
}

static void *work(void *arg)
{
    worker *w = (worker *)arg;
    stream_priv *p = w->p;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        slot *b = NULL;
        uint64_t k;
        for (k = p->handed; k < p->gathered; k++)
            if (p->slots[k % p->nslots].state == S_READY) {
                b = &p->slots[k % p->nslots];
                break;
            }
        if (b == NULL) {
            if (p->quit)
                break;
            pthread_cond_wait(&p->cv, &p->mu);
            continue;
        }
        b->state = S_BUSY;
        pthread_mutex_unlock(&p->mu);
        parse_slot(p, w, b);
        pthread_mutex_lock(&p->mu);
        b->state = S_DONE;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* ------------------------------------------------------------ the stream */

static int stream_next(struct ArrowArrayStream *s, struct ArrowArray *out)
{
    stream_priv *p = (stream_priv *)s->private_data;
    slot *b;
    int rc;
    memset(out, 0, sizeof *out); /* (release NULL: the end) */
    if (p->pending) {
        p->pending = 0;
        memcpy(p->error, p->pending_error, sizeof p->error);
        return p->pending_rc;
    }
    /* read ahead while there is a free slot (all of it with no workers: one) */
    for (;;) {
        pthread_mutex_lock(&p->mu);
        b = &p->slots[p->gathered % p->nslots];
        rc = !p->input_done && p->gathered - p->handed < p->nslots && b->state == S_FREE;
        pthread_mutex_unlock(&p->mu);
        if (!rc)
            break;
        gather(p, b);
        if (b->n == 0 && b->input_rc == 0)
            break; /* the end */
        pthread_mutex_lock(&p->mu);
        b->state = b->n > 0 ? S_READY : S_DONE;
        b->rc = 0;
        p->gathered++;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        if (p->nworkers == 0)
            break;
    }
    if (p->handed == p->gathered)
        return 0;
    b = &p->slots[p->handed % p->nslots];
    if (p->nworkers == 0) {
        if (b->state == S_READY) {
            parse_slot(p, &p->workers[0], b);
            b->state = S_DONE;
        }
    } else {
        pthread_mutex_lock(&p->mu);
        while (b->state != S_DONE)
            pthread_cond_wait(&p->cv, &p->mu);
        pthread_mutex_unlock(&p->mu);
    }
    /* the slot's outcome: the batch, its error, or (no records) the input's */
    if (b->n > 0) {
        rc = b->rc;
        if (rc == 0)
            *out = b->arr;
        else
            memcpy(p->error, b->error, sizeof p->error);
        if (b->input_rc != 0) {
            p->pending = 1;
            p->pending_rc = b->input_rc;
            memcpy(p->pending_error, b->input_error, sizeof p->pending_error);
        }
    } else {
        rc = b->input_rc;
        memcpy(p->error, b->input_error, sizeof p->error);
    }
    pthread_mutex_lock(&p->mu);
    memset(&b->arr, 0, sizeof b->arr);
    b->state = S_FREE;
    p->handed++;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    return rc;
}

static const char *stream_error(struct ArrowArrayStream *s)
{
    stream_priv *p = (stream_priv *)s->private_data;
    return p->error[0] != '\0' ? p->error : NULL;
}

static void stream_release(struct ArrowArrayStream *s)
{
    stream_priv *p = (stream_priv *)s->private_data;
    size_t i;
    if (p != NULL) {
        if (p->nworkers > 0) {
            pthread_mutex_lock(&p->mu);
            p->quit = 1;
            pthread_cond_broadcast(&p->cv);
            pthread_mutex_unlock(&p->mu);
        }
        for (i = 0; p->workers != NULL && i < (p->nworkers > 0 ? p->nworkers : 1); i++) {
            if (p->workers[i].started)
                pthread_join(p->workers[i].thread, NULL);
            free(p->workers[i].cols);
            free(p->workers[i].scratch);
        }
        free(p->workers);
        free(p->recs);
        /* batches parsed ahead and never handed out */
        for (i = 0; p->slots != NULL && i < p->nslots; i++) {
            slot *b = &p->slots[i];
            if (b->state == S_DONE && b->n > 0 && b->rc == 0 && b->arr.release != NULL)
                b->arr.release(&b->arr);
            data_free(b);
            free(b->views);
            free(b->at);
            free(b->index);
            free(b->offset);
            free(b->file);
        }
        free(p->slots);
        if (p->open)
            fc_input_close(&p->in);
        for (i = 0; i < p->npaths; i++)
            free(p->paths[i]);
        free(p->paths);
        if (p->cache != NULL) { /* (its spares now; the rest with the last block out) */
            unsigned k;
            pthread_mutex_lock(&p->cache->mu);
            p->cache->alive = 0;
            for (k = 0; k < p->cache->nspare; k++)
                spare_free(&p->cache->spare[k]);
            p->cache->nspare = 0;
            pthread_mutex_unlock(&p->cache->mu);
            cache_unref(p->cache);
        }
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
        free(p);
    }
    s->release = NULL;
}

int fc_arrow_stream(const fc_message_desc *md, const fc_seq_desc *sd, unsigned flags,
                    const char *const *paths, size_t npaths, size_t batch_size,
                    const fc_input_options *opt, struct ArrowArrayStream *out, fc_error *err)
{
    return fc_arrow_stream_hooked(md, sd, flags, paths, npaths, batch_size, opt, NULL, out, err);
}

static int slot_alloc(slot *b, size_t bsize)
{
    b->views = (fc_bytes *)calloc(bsize, sizeof *b->views);
    b->at = (size_t *)calloc(bsize, sizeof *b->at);
    b->index = (uint64_t *)calloc(bsize, sizeof *b->index);
    b->offset = (uint64_t *)calloc(bsize, sizeof *b->offset);
    b->file = (size_t *)calloc(bsize, sizeof *b->file);
    return b->views != NULL && b->at != NULL && b->index != NULL && b->offset != NULL &&
                   b->file != NULL
               ? 0
               : -1;
}

int fc_arrow_stream_hooked(const fc_message_desc *md, const fc_seq_desc *sd, unsigned flags,
                           const char *const *paths, size_t npaths, size_t batch_size,
                           const fc_input_options *opt, const fc_arrow_stream_hooks *hooks,
                           struct ArrowArrayStream *out, fc_error *err)
{
    stream_priv *p;
    size_t i, nw;
    unsigned threads = hooks != NULL && hooks->threads > 1 ? hooks->threads : 0;
    if ((md == NULL) == (sd == NULL) || out == NULL || (paths == NULL && npaths > 0) ||
        batch_size == 0 || opt == NULL || threads > 1024 ||
        ((hooks == NULL || hooks->parse == NULL) &&
         (md != NULL ? md->parse == NULL : sd->parse == NULL)))
        return FC_ERR_ARG;
    memset(out, 0, sizeof *out);
    p = (stream_priv *)calloc(1, sizeof *p);
    if (p == NULL)
        goto oom;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if ((p->cache = (block_cache *)calloc(1, sizeof *p->cache)) != NULL) {
        pthread_mutex_init(&p->cache->mu, NULL);
        p->cache->refs = 1;
        p->cache->alive = 1;
    }
    p->md = md;
    p->sd = sd;
    p->flags = flags;
    p->opt = *opt;
    p->bsize = batch_size;
    if (hooks != NULL)
        p->hooks = *hooks;
    p->ncols = md != NULL ? md->nfields : sd->ncontext + sd->nlists;
    out->private_data = p;
    out->release = stream_release;
    nw = threads > 0 ? threads : 1;
    p->nslots = threads > 0 ? 2u * threads : 1u;
    p->paths = (char **)calloc(npaths + 1, sizeof *p->paths);
    p->slots = (slot *)calloc(p->nslots, sizeof *p->slots);
    p->workers = (worker *)calloc(nw, sizeof *p->workers);
    if (p->paths == NULL || p->slots == NULL || p->workers == NULL)
        goto oom;
    for (i = 0; i < p->nslots; i++)
        if (slot_alloc(&p->slots[i], batch_size) != 0)
            goto oom;
    if ((p->recs = (fc_record *)calloc(batch_size, sizeof *p->recs)) == NULL)
        goto oom;
    for (i = 0; i < nw; i++) {
        worker *w = &p->workers[i];
        w->p = p;
        w->index = (unsigned)i;
        w->cols = (fc_column *)calloc(p->ncols + 1, sizeof *w->cols);
        w->scratch = malloc(md != NULL ? md->size : sd->size);
        if (w->cols == NULL || w->scratch == NULL)
            goto oom;
    }
    for (i = 0; i < npaths; i++) {
        size_t len = strlen(paths[i]);
        p->paths[i] = (char *)malloc(len + 1);
        if (p->paths[i] == NULL)
            goto oom;
        memcpy(p->paths[i], paths[i], len + 1);
        p->npaths = i + 1;
    }
    p->opt.index_path = NULL; /* (one index would not fit several files) */
    p->opt.index_text = NULL;
    for (i = 0; i < threads; i++) {
        if (pthread_create(&p->workers[i].thread, NULL, work, &p->workers[i]) != 0)
            goto oom;
        p->workers[i].started = 1;
        p->nworkers = (unsigned)i + 1;
    }
    out->get_schema = stream_schema;
    out->get_next = stream_next;
    out->get_last_error = stream_error;
    return FC_OK;
oom:
    if (out->release != NULL) {
        if (p->nworkers == 0 && threads > 0)
            p->nworkers = 0; /* (none started: nothing to join) */
        out->release(out);
    } else {
        free(p);
    }
    {
        fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "arrow: out of memory for a stream");
    }
    return FC_ERR_NO_MEMORY;
}
