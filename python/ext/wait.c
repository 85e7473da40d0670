/* Waiting for another thread of the reader: a short spin, then sleep.
 *
 * The reader's threads hand each other batches of 256 records, a few
 * microseconds of work each on small records.  Sleeping on a condition
 * variable at every hand-off costs a futex wait and a wake, a context
 * switch on each side: on this project's 2-core test machine (a PVM guest)
 * about 13 us a batch, which made read(threads=2) half as fast as
 * threads=1 on the tutorial corpus.  So a waiter first polls a counter
 * that the other side bumps, under the mutex, whenever it makes progress,
 * for up to SPIN_NS, and sleeps only when nothing came by then.  Spinning
 * is asked for only when the reader's threads are no more than the online
 * CPUs (a spinner must not take the core of the thread it waits for).
 *
 * The counter is read without the mutex through the compiler's __atomic
 * built-ins (gcc, clang); a compiler without them sleeps at once, as
 * before. */
#include "ext.h"

#include <time.h>

#define SPIN_NS 50000L

#if defined(__ATOMIC_ACQUIRE)
#define HAVE_SPIN 1
static unsigned load_seq(const unsigned *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
#else
#define HAVE_SPIN 0
#endif

static void relax(void)
{
#if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_ia32_pause();
#elif defined(__GNUC__) && defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void fcpy_wake_bump(unsigned *seq)
{
#if HAVE_SPIN
    __atomic_store_n(seq, *seq + 1u, __ATOMIC_RELEASE);
#else
    ++*seq;
#endif
}

int fcpy_wait_can_spin(size_t threads)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return HAVE_SPIN && cpus > 1 && threads <= (size_t)cpus;
}

#if HAVE_SPIN
/* 1 when *seq moved from seen within SPIN_NS. */
static int spin(const unsigned *seq, unsigned seen)
{
    struct timespec t0, t;
    unsigned k;
    if (clock_gettime(CLOCK_MONOTONIC, &t0) != 0)
        return 0;
    for (k = 1;; k++) {
        if (load_seq(seq) != seen)
            return 1;
        relax();
        if ((k & 31u) == 0) {
            if (clock_gettime(CLOCK_MONOTONIC, &t) != 0 ||
                (t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > SPIN_NS)
                return 0;
        }
    }
}
#endif

void fcpy_wait(pthread_mutex_t *mu, pthread_cond_t *cv, const unsigned *seq, int can_spin)
{
#if HAVE_SPIN
    if (can_spin) {
        unsigned seen = *seq;
        int moved;
        pthread_mutex_unlock(mu);
        moved = spin(seq, seen);
        pthread_mutex_lock(mu);
        /* (a bump after the last poll came under the mutex, with its
         * signal: seen here, or the signal wakes the wait below) */
        if (moved || *seq != seen)
            return;
    }
#else
    (void)seq;
    (void)can_spin;
#endif
    pthread_cond_wait(cv, mu);
}
