/* Record boundaries already walked to: see walks.h.
 *
 * A small fixed table, no allocation: FILES files (the least recently used
 * one given up for a new one), each with up to MARKS boundaries in offset
 * order (when full, every second one is given up: the rest still spread
 * over the file).  One mutex, taken with trylock: a process forked while
 * another thread held it finds it held for good, and walks from the start
 * as it would without the table. */
#include "walks.h"

#include <pthread.h>
#include <string.h>

enum { FILES = 16, MARKS = 256 };

typedef struct {
    fc_file_id f;
    uint64_t used; /* the clock at its last use; 0: free */
    unsigned n;
    uint64_t offset[MARKS], index[MARKS];
} known_file;

static known_file files[FILES];
static uint64_t clock_now;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int same_file(const fc_file_id *a, const fc_file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_s == b->mtime_s && a->mtime_ns == b->mtime_ns;
}

static known_file *lookup(const fc_file_id *f)
{
    unsigned k;
    for (k = 0; k < FILES; k++)
        if (files[k].used != 0 && same_file(&files[k].f, f)) {
            files[k].used = ++clock_now;
            return &files[k];
        }
    return NULL;
}

int fc_walks_find(const fc_file_id *f, uint64_t before, uint64_t *offset, uint64_t *index)
{
    known_file *k;
    int found = 0;
    if (f == NULL || pthread_mutex_trylock(&lock) != 0)
        return 0;
    k = lookup(f);
    if (k != NULL) {
        unsigned lo = 0, hi = k->n; /* the first mark past before */
        while (lo < hi) {
            unsigned mid = lo + (hi - lo) / 2;
            if (k->offset[mid] <= before)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo > 0) {
            *offset = k->offset[lo - 1];
            *index = k->index[lo - 1];
            found = 1;
        }
    }
    pthread_mutex_unlock(&lock);
    return found;
}

void fc_walks_note(const fc_file_id *f, uint64_t offset, uint64_t index)
{
    known_file *k;
    unsigned i, at;
    if (f == NULL || offset == 0 || pthread_mutex_trylock(&lock) != 0)
        return;
    k = lookup(f);
    if (k == NULL) {
        unsigned oldest = 0;
        for (i = 1; i < FILES; i++)
            if (files[i].used < files[oldest].used)
                oldest = i;
        k = &files[oldest];
        k->f = *f;
        k->n = 0;
        k->used = ++clock_now;
    }
    for (at = 0; at < k->n && k->offset[at] < offset; at++)
        ;
    if (at < k->n && k->offset[at] == offset) {
        pthread_mutex_unlock(&lock);
        return;
    }
    if (k->n == MARKS) {
        for (i = 0; i < MARKS / 2; i++) {
            k->offset[i] = k->offset[2 * i + 1];
            k->index[i] = k->index[2 * i + 1];
        }
        k->n = MARKS / 2;
        for (at = 0; at < k->n && k->offset[at] < offset; at++)
            ;
    }
    memmove(&k->offset[at + 1], &k->offset[at], (k->n - at) * sizeof k->offset[0]);
    memmove(&k->index[at + 1], &k->index[at], (k->n - at) * sizeof k->index[0]);
    k->offset[at] = offset;
    k->index[at] = index;
    k->n++;
    pthread_mutex_unlock(&lock);
}
