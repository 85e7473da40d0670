/* The thread-pool reader: see featc/fc_pool.h.
 *
 * A split of an uncompressed file goes through two steps in its worker:
 *   1. place: the checksum sync finds a first record from the split's
 *      start (split 0 starts at 0), and the headers are walked from there
 *      to the split's end: where the chain ends, and how many records;
 *   2. read: once the split before it is final, the split's start is
 *      checked against where that one's chain ended (the junction); a
 *      wrong guess is replaced by that offset and walked again.  Then the
 *      records go to work->record, with their indices known.
 * Step 1 runs in parallel for all splits and costs one header per record;
 * only the junction check waits for the split before. */
#include "featc/fc_pool.h"

#include "featc/fc_input.h"

#include "ahead.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIN_SPLIT ((uint64_t)1 << 20)
#define MAX_SPLIT ((uint64_t)64 << 20)
#define INITIAL_BUFFER (256u * 1024u)
#define WORK_SIZE (FC_INFLATE_ARENA_SIZE + 256u * 1024u)
#define DEFAULT_MAX_RECORD ((size_t)1 << 30)

typedef struct pool_file {
    fc_mapped_file map;
    int borrowed;            /* map is the caller's memory (fc_pool_open_mem) */
    int failed;              /* ordered: a split of it was handed out failed */
    fc_compression compression;
    fc_gzip_member *members; /* GZIP: FILE.members, when there is one */
    size_t nmembers;
    char *members_path;      /* its name, for messages */
    char *path;              /* the file's, for messages (NULL: memory) */
    fc_status open_status;   /* it could not be opened: its one split fails with this */
    fc_error open_err;
    fc_map_guard *guard;     /* the map's (fc_input_map) */
} pool_file;

typedef struct task {
    fc_pool_split s;
    uint64_t guess;      /* step 1: the first record found */
    uint64_t walk_end;   /* step 1: where the chain walked from guess ends */
    uint64_t walk_count; /* step 1: records on it */
    int walk_broke;      /* step 1: the chain broke before the split's end */
    uint64_t count;      /* final: records the split owns (skipped ones included) */
    int broke;           /* final: the file's chain is lost in or before this split */
    int final;           /* start, stop, first_index, count known */
    int done;
    int delivered;
} task;

typedef struct worker {
    fc_pool *pool;
    unsigned id;
    pthread_t thread;
    void *state;
    unsigned char *buf;
    size_t cap;
    void *work;
} worker;

struct fc_pool {
    fc_pool_options opt;
    fc_pool_work work;
    size_t nfiles;
    pool_file *files;
    task *tasks;
    size_t ntasks;
    size_t next_task;  /* the next split a worker takes */
    size_t cursor;     /* ordered: the next split to hand out */
    size_t handed;     /* splits handed out */
    size_t ahead;      /* splits a worker may take beyond the cursor */
    int inflate_ahead; /* opt's, and fewer splits than threads: a whole GZIP or ZLIB
                          file is inflated on a thread of its own (fc_ahead) */
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    worker *workers;
    unsigned nworkers;
    unsigned started;
};

static void lock(fc_pool *p)
{
    pthread_mutex_lock(&p->mu);
}

static void unlock(fc_pool *p)
{
    pthread_mutex_unlock(&p->mu);
}

static fc_reader_options reader_opts(const fc_pool *p, worker *w, fc_compression c)
{
    fc_reader_options o;
    memset(&o, 0, sizeof o);
    o.compression = c;
    o.crc_policy = p->opt.crc_policy;
    o.buffer = w->buf;
    o.buffer_size = w->cap;
    o.work = w->work;
    o.work_size = WORK_SIZE;
    return o;
}

/* Step 1 for an uncompressed split. */
static void place(fc_pool *p, worker *w, task *t)
{
    const pool_file *f = &p->files[t->s.file];
    fc_reader_options o = reader_opts(p, w, FC_COMPRESSION_NONE);
    fc_reader r;
    uint64_t size = f->map.size;
    (void)fc_reader_init_mem(&r, f->map.data, f->map.size, &o, NULL);
    if (t->s.split > 0) {
        (void)fc_reader_set_limit(&r, t->s.end);
        (void)fc_reader_sync(&r, t->s.begin);
    }
    t->guess = fc_reader_offset(&r);
    (void)fc_reader_skip_to(&r, t->s.end);
    t->walk_end = fc_reader_offset(&r);
    t->walk_count = fc_reader_count(&r);
    t->walk_broke = t->walk_end < t->s.end && t->walk_end < size;
}

/* The junction: makes t final from the split before it (final). */
static void settle(fc_pool *p, worker *w, task *t, const task *prev)
{
    uint64_t expected = prev->s.stop;
    t->s.first_index = prev->s.first_index + prev->count;
    if (prev->broke) {
        t->broke = 1;
        t->s.start = t->s.stop = expected;
        t->count = 0;
        t->s.status = FC_ERR_STATE;
        return;
    }
    if (expected >= t->s.end) {
        /* the chain jumps over this split: it owns no record */
        t->s.start = t->s.stop = expected;
        t->count = 0;
        return;
    }
    if (t->guess != expected) {
        /* a wrong guess: walk again from where the records before end */
        const pool_file *f = &p->files[t->s.file];
        fc_reader_options o = reader_opts(p, w, FC_COMPRESSION_NONE);
        fc_reader r;
        (void)fc_reader_init_mem(&r, f->map.data, f->map.size, &o, NULL);
        (void)fc_reader_seek(&r, expected, 0);
        (void)fc_reader_skip_to(&r, t->s.end);
        t->guess = expected;
        t->walk_end = fc_reader_offset(&r);
        t->walk_count = fc_reader_count(&r);
        t->walk_broke = t->walk_end < t->s.end && t->walk_end < f->map.size;
    }
    t->s.start = t->guess;
    t->s.stop = t->walk_end;
    t->count = t->walk_count;
    t->broke = t->walk_broke;
}

/* 1 with err filled when f shrank under its map (fc_input_map): at_end,
 * the size is looked at too. */
static int file_changed(const pool_file *f, fc_error *err, int at_end)
{
    uint64_t at;
    if (!(at_end ? fc_input_map_shrank(f->guard, &at) : fc_input_map_changed(f->guard, &at)))
        return 0;
    (void)fc_input_changed_error(err, f->path, (uint64_t)f->map.size, at);
    return 1;
}

/* After the member list's claim failed a read: which list (as fc_input). */
static void members_note(const pool_file *f, fc_error *err)
{
    fc_msg m;
    if (err->status != FC_ERR_INDEX || f->members == NULL || f->members_path == NULL)
        return;
    m = fc_error_more(err);
    fc_msg_str(&m, " (member index ");
    fc_msg_str(&m, f->members_path);
    fc_msg_str(&m, ": is it this file's? featc index --check)");
}

/* Starts reading a whole GZIP or ZLIB file from the bytes a thread
 * inflates ahead, when the caller asked for it and the pool has a core to
 * spare (fewer splits than threads) and no member list splits the file:
 * NULL when not (the split is read on this thread, as every other one). */
static fc_ahead *ahead_start(const fc_pool *p, const pool_file *f, const task *t,
                             const fc_reader_options *o, fc_reader *r)
{
    fc_reader_options plain = *o;
    fc_ahead *a;
    if (!p->inflate_ahead || f->members != NULL || t->s.splits != 1 ||
        (a = fc_ahead_start_mem(f->map.data, f->map.size, f->compression)) == NULL)
        return NULL; /* (NULL too for a file neither GZIP nor ZLIB) */
    plain.compression = FC_COMPRESSION_NONE;
    if (fc_reader_init_pull(r, fc_ahead_pull, a, &plain, NULL) != FC_OK) {
        fc_ahead_stop(a);
        return NULL;
    }
    return a;
}

/* Step 2, and whole compressed files and member splits: the records. */
static void read_split(fc_pool *p, worker *w, task *t)
{
    const pool_file *f = &p->files[t->s.file];
    size_t max_record = p->opt.max_record_size != 0 ? p->opt.max_record_size : DEFAULT_MAX_RECORD;
    fc_reader_options o = reader_opts(p, w, f->compression);
    fc_reader r;
    fc_record rec;
    fc_status s = FC_OK;
    uint64_t released; /* the split's pages read past, given back (fc_input_map_release) */
    uint64_t replay = 0; /* records given before a fallback, read past again */
    fc_ahead *ahead = ahead_start(p, f, t, &o, &r);
    t->s.inflated_ahead = ahead != NULL;
    if (ahead == NULL)
        s = fc_reader_init_mem(&r, f->map.data, f->map.size, &o, &t->s.err);
    if (s == FC_OK && f->compression == FC_COMPRESSION_NONE) {
        s = fc_reader_set_limit(&r, t->s.end);
        if (s == FC_OK)
            s = fc_reader_seek(&r, t->s.start, t->s.first_index);
    } else if (s == FC_OK && f->members != NULL) {
        s = fc_reader_range_members(&r, f->members, f->nmembers, t->s.begin, t->s.end);
        t->s.start = fc_reader_offset(&r);
        t->s.first_index = fc_reader_count(&r);
    }
    if (s != FC_OK) {
        t->s.status = s;
        if (t->s.err.status == FC_OK)
            t->s.err = *fc_reader_error(&r);
        members_note(f, &t->s.err);
        return;
    }
    released = ahead != NULL ? 0 : fc_reader_raw_offset(&r);
    for (;;) {
        s = fc_reader_next(&r, &rec);
        if (s == FC_OK && replay > 0) {
            replay--;
            continue;
        }
        if (s == FC_OK) {
            if (rec.length > max_record) {
                fc_msg m = fc_error_begin(&t->s.err, FC_ERR_TOO_LARGE, rec.index, rec.offset);
                fc_msg_str(&m, "record size too large: record ");
                fc_msg_u64(&m, rec.index);
                fc_msg_str(&m, " at offset ");
                fc_msg_u64(&m, rec.offset);
                fc_msg_str(&m, " declares ");
                fc_msg_u64(&m, rec.length);
                fc_msg_str(&m, " bytes, more than the largest record allowed (");
                fc_msg_u64(&m, max_record);
                fc_msg_str(&m, ")");
                s = FC_ERR_TOO_LARGE;
                break;
            }
            if (file_changed(f, &t->s.err, 0)) {
                s = FC_ERR_IO;
                break;
            }
            if (!f->borrowed && ahead == NULL) /* (the caller's memory is the caller's) */
                fc_input_map_release(&f->map, &released, fc_reader_raw_offset(&r));
            t->s.records++;
            s = p->work.record(p->work.ctx, w->state, &t->s, &rec, &t->s.err);
            if (s != FC_OK)
                break;
            continue;
        }
        if (s == FC_ERR_BUFFER) {
            size_t need = fc_reader_needed(&r);
            unsigned char *bigger;
            if (need >= FC_RECORD_OVERHEAD && need - FC_RECORD_OVERHEAD <= max_record &&
                (bigger = (unsigned char *)malloc(need)) != NULL) {
                if (fc_reader_set_buffer(&r, bigger, need) == FC_OK) {
                    free(w->buf);
                    w->buf = bigger;
                    w->cap = need;
                    continue;
                }
                free(bigger);
            }
        }
        if (ahead != NULL && !(s == FC_END && fc_ahead_ended(ahead))) {
            /* the thread stopped short, or the records ended otherwise
             * than as they should: the file read again on this thread
             * from its first byte, past the records given, so that what
             * follows (the error included) is the one-thread read's */
            fc_ahead_stop(ahead);
            ahead = NULL;
            t->s.inflated_ahead = 2;
            replay = t->s.records;
            o = reader_opts(p, w, f->compression); /* (its buffer may have grown) */
            s = fc_reader_init_mem(&r, f->map.data, f->map.size, &o, &t->s.err);
            if (s != FC_OK)
                break;
            released = fc_reader_raw_offset(&r);
            continue;
        }
        if (file_changed(f, &t->s.err, 1)) {
            s = FC_ERR_IO; /* what the read made of the zeros is not the file's */
            break;
        }
        if (s != FC_END) {
            t->s.err = *fc_reader_error(&r);
            members_note(f, &t->s.err);
        }
        break;
    }
    t->s.status = s;
    t->s.skipped = fc_reader_skipped(&r);
    if (t->s.skipped > 0)
        t->s.last_skip = *fc_reader_last_skip(&r);
    if (!t->final) /* a split already final keeps the stop its successor reads */
        t->s.stop = fc_reader_offset(&r);
    /* the split is done with: its pages (walked and read) are given back,
     * else each split would leave its last tens of MB resident, and a file
     * read in splits the whole file */
    if (!f->borrowed)
        fc_input_map_release_range(&f->map, released,
                                   ahead != NULL ? f->map.size : fc_reader_raw_offset(&r));
    fc_ahead_stop(ahead);
}

static void *worker_main(void *arg)
{
    worker *w = (worker *)arg;
    fc_pool *p = w->pool;
    for (;;) {
        task *t;
        size_t i;
        lock(p);
        while (!p->stop && p->next_task < p->ntasks &&
               p->next_task >= (p->opt.ordered ? p->cursor : p->handed) + p->ahead)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->stop || p->next_task >= p->ntasks) {
            unlock(p);
            return NULL;
        }
        i = p->next_task++;
        t = &p->tasks[i];
        unlock(p);
        if (p->files[t->s.file].open_status != FC_OK) {
            t->s.status = p->files[t->s.file].open_status;
            t->s.err = p->files[t->s.file].open_err;
        } else if (p->files[t->s.file].compression == FC_COMPRESSION_NONE &&
                   t->s.end != UINT64_MAX) {
            place(p, w, t);
            lock(p);
            if (t->s.split > 0) {
                while (!p->stop && !p->tasks[i - 1].final)
                    pthread_cond_wait(&p->cv, &p->mu);
                if (p->stop) {
                    unlock(p);
                    return NULL;
                }
            }
            unlock(p);
            if (t->s.split > 0) {
                settle(p, w, t, &p->tasks[i - 1]);
            } else {
                t->s.start = 0;
                t->s.first_index = 0;
                t->s.stop = t->walk_end;
                t->count = t->walk_count;
                t->broke = t->walk_broke;
            }
            lock(p);
            t->final = 1;
            pthread_cond_broadcast(&p->cv);
            unlock(p);
            if (t->s.status == FC_OK && t->s.start < t->s.end) {
                read_split(p, w, t);
                if (t->s.status == FC_END && t->s.records + t->s.skipped != t->count) {
                    /* the walk and the read disagree: never expected */
                    fc_msg m = fc_error_begin(&t->s.err, FC_ERR_STATE, t->s.first_index,
                                              t->s.start);
                    fc_msg_str(&m, "internal error: the split from offset ");
                    fc_msg_u64(&m, t->s.start);
                    fc_msg_str(&m, " read ");
                    fc_msg_u64(&m, t->s.records + t->s.skipped);
                    fc_msg_str(&m, " records where its headers counted ");
                    fc_msg_u64(&m, t->count);
                    t->s.status = FC_ERR_STATE;
                }
            }
        } else {
            /* a whole file, or a member split: placed exactly by itself */
            read_split(p, w, t);
            t->count = t->s.records + t->s.skipped;
        }
        if (t->s.status == FC_OK)
            t->s.status = FC_END;
        if ((t->s.status == FC_END || t->s.status == FC_ERR_STATE) &&
            file_changed(&p->files[t->s.file], &t->s.err, 1))
            t->s.status = FC_ERR_IO; /* the walk that placed it may have read zeros */
        lock(p);
        t->final = 1;
        t->done = 1;
        pthread_cond_broadcast(&p->cv);
        unlock(p);
    }
}

size_t fc_pool_splits(const fc_pool *pool)
{
    return pool->ntasks;
}

/* The splits of file k (planned into tasks when tasks is not NULL). */
static size_t plan_file(const fc_pool *p, size_t k, task *tasks)
{
    const pool_file *f = &p->files[k];
    uint64_t size = f->map.size, per = p->opt.split_bytes;
    size_t n, i;
    if (f->compression == FC_COMPRESSION_NONE && p->opt.crc_policy != FC_CRC_NONE) {
        if (per == 0) {
            per = size / (4u * (uint64_t)p->nworkers);
            per = per < MIN_SPLIT ? MIN_SPLIT : per > MAX_SPLIT ? MAX_SPLIT : per;
        }
    } else if (f->members != NULL && f->nmembers > 1) {
        if (per == 0) {
            per = size / (4u * (uint64_t)p->nworkers);
            per = per < MIN_SPLIT ? MIN_SPLIT : per > MAX_SPLIT ? MAX_SPLIT : per;
        }
    } else {
        per = 0; /* one split: ZLIB, one member, or no CRCs to sync by */
    }
    n = per == 0 || size <= per ? 1 : (size_t)((size + per - 1) / per);
    for (i = 0; tasks != NULL && i < n; i++) {
        task *t = &tasks[i];
        memset(t, 0, sizeof *t);
        t->s.file = k;
        t->s.split = i;
        t->s.splits = n;
        t->s.begin = fc_input_split_offset(size, i, n);
        t->s.end = i + 1 == n ? (n == 1 ? UINT64_MAX : size) : fc_input_split_offset(size, i + 1, n);
        t->s.compression = f->compression;
        t->s.status = FC_OK;
        fc_error_clear(&t->s.err);
    }
    return n;
}

static fc_status open_file(fc_pool *p, size_t k, const char *path, const void *data,
                           size_t size, worker *w, fc_error *err)
{
    pool_file *f = &p->files[k];
    fc_reader_options o = reader_opts(p, w, p->opt.compression);
    fc_reader r;
    fc_status s = FC_OK;
    if (path != NULL) {
        f->path = fc_input_sibling(path, "");
        if (f->path == NULL)
            return FC_ERR_NO_MEMORY;
        s = fc_input_map(path, &f->map, &f->guard, err);
    } else {
        f->map.data = (const uint8_t *)data;
        f->map.size = data == NULL ? 0 : size;
        f->borrowed = 1;
    }
    if (s != FC_OK)
        return s;
    s = fc_reader_init_mem(&r, f->map.data, f->map.size, &o, err);
    if (s != FC_OK)
        return s;
    f->compression = fc_reader_compression(&r);
    if (f->compression == FC_COMPRESSION_GZIP && path != NULL) {
        char *mp = fc_input_sibling(path, ".members");
        if (mp == NULL)
            return FC_ERR_NO_MEMORY;
        if (access(mp, F_OK) == 0)
            s = fc_input_load_members(mp, &f->members, &f->nmembers, err);
        f->members_path = mp;
    }
    return s;
}

static void pool_free(fc_pool *p)
{
    size_t k;
    unsigned i;
    for (k = 0; p->files != NULL && k < p->nfiles; k++) {
        if (!p->files[k].borrowed)
            fc_input_unmap(&p->files[k].map, p->files[k].guard);
        free(p->files[k].path);
        free(p->files[k].members);
        free(p->files[k].members_path);
    }
    for (i = 0; p->workers != NULL && i < p->nworkers; i++) {
        if (p->work.state_free != NULL && p->workers[i].state != NULL)
            p->work.state_free(p->work.ctx, p->workers[i].state);
        free(p->workers[i].state);
        free(p->workers[i].buf);
        free(p->workers[i].work);
    }
    free(p->workers);
    free(p->files);
    free(p->tasks);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}

static fc_status pool_open(fc_pool **pool, const char *const *paths, const void *const *data,
                           const size_t *sizes, size_t n, const fc_pool_options *opt,
                           const fc_pool_work *work, fc_error *err)
{
    fc_pool *p;
    size_t k, total = 0;
    unsigned i;
    *pool = NULL;
    if ((paths == NULL && (data == NULL || sizes == NULL)) || opt == NULL || work == NULL ||
        work->record == NULL)
        return FC_ERR_ARG;
    p = (fc_pool *)calloc(1, sizeof *p);
    if (p == NULL)
        return FC_ERR_NO_MEMORY;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->opt = *opt;
    p->work = *work;
    p->nfiles = n;
    p->nworkers = opt->threads == 0 ? 1u : opt->threads;
    p->ahead = 2u * p->nworkers + 2u;
    p->files = (pool_file *)calloc(n > 0 ? n : 1, sizeof *p->files);
    p->workers = (worker *)calloc(p->nworkers, sizeof *p->workers);
    if (p->files == NULL || p->workers == NULL)
        goto no_memory;
    for (i = 0; i < p->nworkers; i++) {
        worker *w = &p->workers[i];
        w->pool = p;
        w->id = i;
        w->cap = INITIAL_BUFFER;
        w->buf = (unsigned char *)malloc(w->cap);
        w->work = malloc(WORK_SIZE);
        w->state = calloc(1, work->state_size > 0 ? work->state_size : 1);
        if (w->buf == NULL || w->work == NULL || w->state == NULL)
            goto no_memory;
    }
    for (k = 0; k < n; k++) {
        fc_status s = open_file(p, k, paths != NULL ? paths[k] : NULL,
                                data != NULL ? data[k] : NULL, sizes != NULL ? sizes[k] : 0,
                                &p->workers[0], err);
        if (s != FC_OK && s != FC_ERR_NO_MEMORY && paths != NULL) {
            /* a file that cannot be opened fails its one split, in its
             * place among the others, as a read of one file at a time
             * fails it */
            pool_file *f = &p->files[k];
            if (err != NULL)
                f->open_err = *err;
            else
                fc_error_clear(&f->open_err);
            f->open_status = s;
            if (!f->borrowed)
                fc_input_unmap(&f->map, f->guard);
            f->guard = NULL;
            f->map.data = NULL;
            f->map.size = 0;
            s = FC_OK;
        }
        if (s != FC_OK) {
            if (err != NULL) {
                fc_error e = *err;
                fc_msg m = fc_error_begin(err, s, FC_NO_INDEX, FC_NO_INDEX);
                if (paths != NULL) {
                    fc_msg_str(&m, paths[k]);
                } else {
                    fc_msg_str(&m, "buffer ");
                    fc_msg_u64(&m, (uint64_t)k);
                }
                fc_msg_str(&m, ": ");
                fc_msg_str(&m, e.message[0] != '\0' ? e.message : fc_strerror(s));
            }
            pool_free(p);
            return s;
        }
        total += plan_file(p, k, NULL);
    }
    p->tasks = (task *)calloc(total > 0 ? total : 1, sizeof *p->tasks);
    if (p->tasks == NULL)
        goto no_memory;
    for (k = 0; k < n; k++)
        p->ntasks += plan_file(p, k, p->tasks + p->ntasks);
    p->inflate_ahead = opt->inflate_ahead && p->nworkers >= 2 && p->ntasks < p->nworkers;
    for (i = 0; i < p->nworkers; i++) {
        if (pthread_create(&p->workers[i].thread, NULL, worker_main, &p->workers[i]) != 0) {
            fc_pool_close(p);
            {
                fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, FC_NO_INDEX);
                fc_msg_str(&m, "cannot start a thread");
            }
            return FC_ERR_IO;
        }
        p->started++;
    }
    *pool = p;
    return FC_OK;
no_memory:
    pool_free(p);
    {
        fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "out of memory setting up the thread pool");
    }
    return FC_ERR_NO_MEMORY;
}

fc_status fc_pool_open(fc_pool **pool, const char *const *paths, size_t n,
                       const fc_pool_options *opt, const fc_pool_work *work, fc_error *err)
{
    if (paths == NULL)
        return FC_ERR_ARG;
    return pool_open(pool, paths, NULL, NULL, n, opt, work, err);
}

fc_status fc_pool_open_mem(fc_pool **pool, const void *const *data, const size_t *sizes, size_t n,
                           const fc_pool_options *opt, const fc_pool_work *work, fc_error *err)
{
    if (data == NULL || sizes == NULL)
        return FC_ERR_ARG;
    return pool_open(pool, NULL, data, sizes, n, opt, work, err);
}

fc_status fc_pool_next(fc_pool *p, fc_pool_split **split)
{
    lock(p);
    if (p->opt.ordered) {
        while (p->cursor < p->ntasks && !p->tasks[p->cursor].done)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->cursor == p->ntasks) {
            unlock(p);
            return FC_END;
        }
        *split = &p->tasks[p->cursor].s;
        p->tasks[p->cursor].delivered = 1;
        p->cursor++;
        {
            /* a sequential read stops at a file's first failure: the
             * splits after it are not part of the file's records */
            fc_pool_split *sp = *split;
            pool_file *f = &p->files[sp->file];
            if (f->failed && sp->status != FC_ERR_STATE) {
                fc_msg m = fc_error_begin(&sp->err, FC_ERR_STATE, FC_NO_INDEX, sp->start);
                fc_msg_str(&m, "not part of the file's records: an earlier split failed");
                sp->status = FC_ERR_STATE;
            } else if (sp->status != FC_END) {
                f->failed = 1;
            }
        }
    } else {
        size_t i;
        for (;;) {
            if (p->handed == p->ntasks) {
                unlock(p);
                return FC_END;
            }
            for (i = 0; i < p->ntasks; i++)
                if (p->tasks[i].done && !p->tasks[i].delivered)
                    break;
            if (i < p->ntasks)
                break;
            pthread_cond_wait(&p->cv, &p->mu);
        }
        *split = &p->tasks[i].s;
        p->tasks[i].delivered = 1;
    }
    p->handed++;
    pthread_cond_broadcast(&p->cv);
    unlock(p);
    return FC_OK;
}

void fc_pool_close(fc_pool *p)
{
    unsigned i;
    if (p == NULL)
        return;
    lock(p);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    unlock(p);
    for (i = 0; i < p->started; i++)
        pthread_join(p->workers[i].thread, NULL);
    pool_free(p);
}
