/* A GZIP or ZLIB file inflated ahead on a thread of its own (ahead.h), so
 * that inflating and framing run on two cores: the thread inflates the
 * file with ISA-L into a ring of 256 KiB slots, and the reader of fc_input
 * (or of a pool's worker, pool.c) takes the inflated bytes from there as
 * an uncompressed stream.
 *
 * Only the regular case is done here: members that follow each other
 * whole, each one's trailer checked.  Anything else (an inflate error, a
 * bad trailer, bytes after the stream, a file cut short, a read error)
 * stops the thread at that point, and its caller reads the file again on one
 * thread from its first byte, past the records it gave: the records and
 * the error are the one-thread reader's, word for word.  The records given
 * before are its too: it hands out every byte inflated before an error,
 * whatever its buffer (inflate.c, reader_zfail: the output first), and
 * the thread inflates the same bytes as far as it goes.
 *
 * Memory: the ring (2 MiB: small, since every page a process touches first
 * costs; 1 MiB slots measured slower), an input buffer (256 KiB; none for
 * a file in memory, which is read in place) and ISA-L's state,
 * allocated at start; hosted code. */
#include "ahead.h"

#include "frame.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(FC_ISAL)

#pragma weak isal_inflate_reset
#pragma weak isal_gzip_header_init

#define SLOT ((size_t)256 << 10)
#define SLOTS 8u
#define IN_CHUNK ((size_t)256 << 10)
#define MEM_CHUNK ((uint32_t)1 << 30) /* bytes of a file in memory given at once */

enum { RUNNING, ENDED, IRREGULAR };

struct fc_ahead {
    int fd;                /* the file read with pread, or -1: */
    const uint8_t *mem;    /* the file in memory (fc_ahead_start_mem) */
    uint64_t size;
    int gzip;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    unsigned char *ring;   /* SLOTS x SLOT */
    size_t len[SLOTS];     /* bytes in each published slot */
    uint64_t produced;     /* slots published */
    uint64_t taken;        /* slots the reader finished */
    int state;             /* RUNNING, ENDED (the stream ended as it should), IRREGULAR */
    int stop;
    int started;           /* the thread runs: stop joins it */
    /* the reader's side */
    size_t at;             /* in slot taken % SLOTS */
    uint64_t given;        /* bytes given to the reader */
    /* the thread's side */
    unsigned char *in;
    uint64_t read_at;
    isal_room room;
};

/* Refills the input when it is empty: 1 when bytes are there, 0 at the
 * file's end, -1 on a read error. */
static int refill(fc_ahead *a)
{
    struct inflate_state *st = &a->room.st;
    ssize_t n;
    if (st->avail_in > 0)
        return 1;
    if (a->read_at >= a->size)
        return 0;
    if (a->mem != NULL) { /* (ISA-L reads its input only: the cast is safe) */
        uint64_t left = a->size - a->read_at;
        uint32_t k = left < MEM_CHUNK ? (uint32_t)left : MEM_CHUNK;
        st->next_in = (uint8_t *)(uintptr_t)(a->mem + a->read_at);
        st->avail_in = k;
        a->read_at += k;
        return 1;
    }
    do
        n = pread(a->fd, a->in,
                  a->size - a->read_at < IN_CHUNK ? (size_t)(a->size - a->read_at) : IN_CHUNK,
                  (off_t)a->read_at);
    while (n < 0 && errno == EINTR);
    if (n <= 0)
        return n == 0 ? 0 : -1; /* (0: the file shrank; the one-thread read says so) */
    a->read_at += (uint64_t)n;
    st->next_in = a->in;
    st->avail_in = (uint32_t)n;
    return 1;
}

static void member_start(fc_ahead *a)
{
    struct inflate_state *st = &a->room.st;
    uint8_t *in = st->next_in;
    uint32_t left = st->avail_in;
    isal_inflate_reset(st);
    st->crc_flag = a->gzip ? ISAL_GZIP : ISAL_ZLIB;
    st->next_in = in;
    st->avail_in = left;
    isal_gzip_header_init(&a->room.gz);
}

/* Inflates into out[0, cap): the bytes made in *made; ENDED, IRREGULAR, or
 * RUNNING when out is full. */
static int inflate_into(fc_ahead *a, unsigned char *out, size_t cap, size_t *made)
{
    struct inflate_state *st = &a->room.st;
    st->next_out = out;
    st->avail_out = (uint32_t)cap;
    for (;;) {
        uint32_t in_before, out_before = st->avail_out;
        int ret = ISAL_DECOMP_OK, more = refill(a);
        *made = cap - st->avail_out;
        if (more < 0)
            return IRREGULAR;
        if (st->avail_out == 0)
            return RUNNING;
        in_before = st->avail_in;
        if (st->crc_flag == ISAL_GZIP && !st->wrapper_flag)
            ret = isal_read_gzip_header(st, &a->room.gz);
        if (ret == ISAL_DECOMP_OK)
            ret = isal_inflate(st);
        *made = cap - st->avail_out;
        if (ret != ISAL_DECOMP_OK && ret != ISAL_END_INPUT && ret != ISAL_OUT_OVERFLOW)
            return IRREGULAR;
        if (st->block_state == ISAL_BLOCK_FINISH) {
            /* the trailer checked; whole bytes ISA-L read ahead given back */
            uint32_t ahead = (uint32_t)(st->read_in_length / 8);
            const uint8_t *base = a->mem != NULL ? a->mem : a->in;
            if (ahead > 0 && (size_t)(st->next_in - base) >= ahead) {
                st->next_in -= ahead;
                st->avail_in += ahead;
                st->read_in_length = 0;
                st->read_in = 0;
            } else if (ahead > 0) {
                return IRREGULAR;
            }
            more = refill(a);
            if (more < 0)
                return IRREGULAR;
            if (more == 0)
                return ENDED;
            /* another GZIP member, whole and plain from its first bytes;
             * anything else is for the one-thread reader to word */
            if (!a->gzip || st->avail_in < 4 || st->next_in[0] != 0x1f ||
                st->next_in[1] != 0x8b || (st->next_in[3] & 0xe0) != 0)
                return IRREGULAR;
            member_start(a);
            continue;
        }
        if (more == 0 && st->avail_in == 0)
            return IRREGULAR; /* cut short */
        if (st->avail_in == in_before && st->avail_out == out_before && in_before > 0)
            return IRREGULAR; /* no progress */
    }
}

static void *run(void *arg)
{
    fc_ahead *a = (fc_ahead *)arg;
    int state = RUNNING;
    while (state == RUNNING) {
        size_t made = 0;
        unsigned slot;
        pthread_mutex_lock(&a->mu);
        while (!a->stop && a->produced - a->taken >= SLOTS)
            pthread_cond_wait(&a->cv, &a->mu);
        if (a->stop) {
            pthread_mutex_unlock(&a->mu);
            break;
        }
        slot = (unsigned)(a->produced % SLOTS);
        pthread_mutex_unlock(&a->mu);
        state = inflate_into(a, a->ring + (size_t)slot * SLOT, SLOT, &made);
        pthread_mutex_lock(&a->mu);
        if (made > 0) {
            a->len[slot] = made;
            a->produced++;
        }
        a->state = state;
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
    }
    return NULL;
}

int fc_ahead_available(void)
{
    return isal_linked() && isal_inflate_reset != NULL && isal_gzip_header_init != NULL;
}

static fc_ahead *start(int fd, const void *mem, uint64_t size, fc_compression c)
{
    fc_ahead *a;
    if (!fc_ahead_available() || (c != FC_COMPRESSION_GZIP && c != FC_COMPRESSION_ZLIB))
        return NULL;
    a = (fc_ahead *)calloc(1, sizeof *a);
    if (a == NULL)
        return NULL;
    a->fd = mem != NULL ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0); /* the same open file */
    a->mem = (const uint8_t *)mem;
    a->size = size;
    a->gzip = c == FC_COMPRESSION_GZIP;
    a->ring = (unsigned char *)malloc(SLOTS * SLOT);
    a->in = mem != NULL ? NULL : (unsigned char *)malloc(IN_CHUNK);
    if ((mem == NULL && (a->fd < 0 || a->in == NULL)) || a->ring == NULL) {
        fc_ahead_stop(a);
        return NULL;
    }
    if (pthread_mutex_init(&a->mu, NULL) != 0) {
        fc_ahead_stop(a);
        return NULL;
    }
    (void)pthread_cond_init(&a->cv, NULL);
    isal_inflate_init(&a->room.st);
    member_start(a);
    a->started = 1;
    if (pthread_create(&a->thread, NULL, run, a) != 0) {
        a->started = 0;
        a->state = IRREGULAR;
        fc_ahead_stop(a);
        return NULL;
    }
    return a;
}

fc_ahead *fc_ahead_start(int fd, uint64_t size, fc_compression c)
{
    return start(fd, NULL, size, c);
}

fc_ahead *fc_ahead_start_mem(const void *data, uint64_t size, fc_compression c)
{
    return data != NULL ? start(-1, data, size, c) : NULL;
}

fc_status fc_ahead_pull(void *ctx, void *buf, size_t n, size_t *got, fc_error *err)
{
    fc_ahead *a = (fc_ahead *)ctx;
    fc_status s = FC_OK;
    *got = 0;
    pthread_mutex_lock(&a->mu);
    for (;;) {
        if (a->taken < a->produced) {
            unsigned slot = (unsigned)(a->taken % SLOTS);
            size_t k = a->len[slot] - a->at;
            if (k > n)
                k = n;
            memcpy(buf, a->ring + (size_t)slot * SLOT + a->at, k);
            a->at += k;
            a->given += k;
            *got = k;
            if (a->at == a->len[slot]) {
                a->at = 0;
                a->taken++;
                pthread_cond_broadcast(&a->cv);
            }
            break;
        }
        if (a->state == ENDED)
            break; /* the end, as it should be */
        if (a->state == IRREGULAR) {
            s = FC_ERR_INFLATE;
            break;
        }
        pthread_cond_wait(&a->cv, &a->mu);
    }
    pthread_mutex_unlock(&a->mu);
    if (s != FC_OK) {
        fc_msg m = fc_error_begin(err, s, FC_NO_INDEX, a->given);
        fc_msg_str(&m, "the inflater thread stopped: the file is read again on one thread");
    }
    return s;
}

int fc_ahead_ended(fc_ahead *a)
{
    int ended;
    pthread_mutex_lock(&a->mu);
    ended = a->state == ENDED && a->taken == a->produced;
    pthread_mutex_unlock(&a->mu);
    return ended;
}

void fc_ahead_stop(fc_ahead *a)
{
    if (a == NULL)
        return;
    if (a->started) {
        pthread_mutex_lock(&a->mu);
        a->stop = 1;
        pthread_cond_broadcast(&a->cv);
        pthread_mutex_unlock(&a->mu);
        pthread_join(a->thread, NULL);
        pthread_cond_destroy(&a->cv);
        pthread_mutex_destroy(&a->mu);
    }
    if (a->fd >= 0)
        close(a->fd);
    free(a->ring);
    free(a->in);
    free(a);
}

#else /* no ISA-L: nothing is inflated ahead */

int fc_ahead_available(void)
{
    return 0;
}

fc_ahead *fc_ahead_start(int fd, uint64_t size, fc_compression c)
{
    (void)fd;
    (void)size;
    (void)c;
    return NULL;
}

fc_ahead *fc_ahead_start_mem(const void *data, uint64_t size, fc_compression c)
{
    (void)data;
    (void)size;
    (void)c;
    return NULL;
}

fc_status fc_ahead_pull(void *ctx, void *buf, size_t n, size_t *got, fc_error *err)
{
    (void)ctx;
    (void)buf;
    (void)n;
    *got = 0;
    (void)err;
    return FC_ERR_INFLATE;
}

int fc_ahead_ended(fc_ahead *a)
{
    (void)a;
    return 0;
}

void fc_ahead_stop(fc_ahead *a)
{
    (void)a;
}
#endif
