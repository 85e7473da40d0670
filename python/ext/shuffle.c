/* read(shuffle=N, seed=S): a shuffle buffer of N records between the
 * sources and the batches, as tf.data's Dataset.shuffle keeps one: filled
 * with the first N records read, then each record of a batch is drawn from
 * it uniformly and its place taken by the next record read; at the end the
 * rest is drawn until it is empty.  The draws come from a generator seeded
 * by S alone (splitmix64 then xoshiro256**), so the same sources, N and S
 * give the same stream on every machine, with any number of threads (the
 * caller's thread draws, in order).
 *
 * Memory: each place holds a copy of its record in a buffer of its own,
 * kept and grown to the largest record it held: at most N x the largest
 * record (max_record_size bounds it), allocated as records arrive. */
#include "ext.h"

typedef struct place {
    unsigned char *data;
    size_t cap;
    fc_record rec; /* data: NULL while in the buffer */
    Py_ssize_t src;
} place;

struct fcpy_shuffle {
    size_t n, cap;
    place *at;  /* cap places; [0, n) hold records */
    place out;  /* the record last drawn */
    uint64_t s[4];
};

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* xoshiro256** (Blackman and Vigna) */
static uint64_t next_u64(fcpy_shuffle *sh)
{
    uint64_t *s = sh->s, r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
}

/* Uniform in [0, n), n >= 1, without modulo bias (Lemire's method). */
static size_t uniform(fcpy_shuffle *sh, size_t n)
{
    uint64_t bound = (uint64_t)n, x = next_u64(sh) >> 32, m;
    if (bound > UINT32_MAX) /* (bounded by MAX_SHUFFLE below) */
        return (size_t)(next_u64(sh) % bound);
    m = x * bound;
    if ((uint32_t)m < bound) {
        uint32_t floor = (uint32_t)((0u - (uint32_t)bound) % (uint32_t)bound);
        while ((uint32_t)m < floor) {
            x = next_u64(sh) >> 32;
            m = x * bound;
        }
    }
    return (size_t)(m >> 32);
}

fcpy_shuffle *fcpy_shuffle_new(size_t cap, uint64_t seed)
{
    fcpy_shuffle *sh = (fcpy_shuffle *)calloc(1, sizeof *sh);
    int k;
    if (sh == NULL)
        return NULL;
    sh->at = (place *)calloc(cap > 0 ? cap : 1, sizeof *sh->at);
    if (sh->at == NULL) {
        free(sh);
        return NULL;
    }
    sh->cap = cap;
    for (k = 0; k < 4; k++)
        sh->s[k] = splitmix64(&seed);
    return sh;
}

void fcpy_shuffle_free(fcpy_shuffle *sh)
{
    size_t i;
    if (sh == NULL)
        return;
    for (i = 0; i < sh->cap; i++)
        free(sh->at[i].data);
    free(sh->out.data);
    free(sh->at);
    free(sh);
}

int fcpy_shuffle_full(const fcpy_shuffle *sh)
{
    return sh->n == sh->cap;
}

size_t fcpy_shuffle_count(const fcpy_shuffle *sh)
{
    return sh->n;
}

int fcpy_shuffle_put(fcpy_shuffle *sh, const fc_record *rec, Py_ssize_t src)
{
    place *p = &sh->at[sh->n];
    if (rec->length > p->cap) {
        size_t cap = rec->length > 2 * p->cap ? rec->length : 2 * p->cap;
        unsigned char *d = (unsigned char *)realloc(p->data, cap);
        if (d == NULL)
            return -1;
        p->data = d;
        p->cap = cap;
    }
    if (rec->length > 0)
        memcpy(p->data, rec->data, rec->length);
    p->rec = *rec;
    p->rec.data = NULL;
    p->src = src;
    sh->n++;
    return 0;
}

void fcpy_shuffle_draw(fcpy_shuffle *sh, fc_record *rec, Py_ssize_t *src)
{
    size_t i = uniform(sh, sh->n);
    place t = sh->out;
    /* the drawn place's memory becomes out's; the last place moves into
     * its slot, and out's old memory to the end, for the next put */
    sh->out = sh->at[i];
    sh->at[i] = sh->at[sh->n - 1];
    sh->at[sh->n - 1] = t;
    sh->n--;
    *rec = sh->out.rec;
    rec->data = sh->out.data;
    *src = sh->out.src;
}
