/* Maps that survive their file shrinking: see fc_input.h, "Guarded maps".
 *
 * A page of a shared file map past the file's current end raises SIGBUS
 * when touched.  Every map the tools read through is registered here; the
 * handler looks the faulting address up, and when it is in a registered
 * map, puts anonymous zero pages over the rest of that map (so that the
 * instruction, retried, reads zeros and no later read faults), records the
 * offset, and returns.  The readers check the record after each record and
 * at the end, and report the change instead of what the zeros read as.
 *
 * The registry is chunks of slots that are never freed or moved, so that
 * the handler can walk it while other threads add and remove maps: a slot
 * is published by its state, written last (release) and read first
 * (acquire).  Allocates: a chunk of slots when the ones there are full. */
#define _DEFAULT_SOURCE 1 /* madvise: glibc's posix_madvise ignores DONTNEED */
#include "featc/fc_input.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct fc_map_guard {
    int state;            /* 0 free, 1 reserved, 2 guarding */
    int fd;               /* the file's, kept to see its size at the end of a read */
    uintptr_t base;
    size_t size;
    int changed;          /* a page of it was found gone */
    uint64_t at;          /* the offset of that page */
};

enum { SLOTS = 256, CHUNKS = 256 }; /* up to 65,536 maps at once */

static fc_map_guard *chunks[CHUNKS];
static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t installed = PTHREAD_ONCE_INIT;
static struct sigaction previous;
static int install_failed;
static int zero_fd = -1; /* /dev/zero, whose private map is zero pages (POSIX has no
                            MAP_ANONYMOUS before 2024) */
static uintptr_t page_mask;

#if defined(__GNUC__) || defined(__clang__)
#define LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#else
#define LOAD(p) (*(p))
#define STORE(p, v) (*(p) = (v))
#endif

/* The previous disposition of SIGBUS, for faults that are not ours. */
static void chain(int sig, siginfo_t *si, void *uc)
{
    if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != NULL) {
        previous.sa_sigaction(sig, si, uc);
    } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
        previous.sa_handler(sig);
    } else {
        /* the default: returning re-runs the access, which faults again
         * and ends the process as it would have without us */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        (void)sigaction(SIGBUS, &dfl, NULL);
    }
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    uintptr_t a = (uintptr_t)si->si_addr;
    size_t c, k;
    int saved = errno;
    for (c = 0; c < CHUNKS; c++) {
        fc_map_guard *chunk = LOAD(&chunks[c]);
        if (chunk == NULL)
            break;
        for (k = 0; k < SLOTS; k++) {
            fc_map_guard *g = &chunk[k];
            uintptr_t page;
            if (LOAD(&g->state) != 2 || a < g->base || a - g->base >= g->size)
                continue;
            page = a & page_mask;
            if (mmap((void *)page, g->size - (size_t)(page - g->base), PROT_READ,
                     MAP_PRIVATE | MAP_FIXED, zero_fd, 0) == MAP_FAILED)
                break; /* cannot repair: as if unguarded */
            if (!LOAD(&g->changed)) {
                g->at = (uint64_t)(page - g->base);
                STORE(&g->changed, 1);
            }
            errno = saved;
            return;
        }
    }
    errno = saved;
    chain(sig, si, uc);
}

static void install(void)
{
    struct sigaction sa;
    long page = sysconf(_SC_PAGESIZE);
    page_mask = ~(uintptr_t)((page > 0 ? (uintptr_t)page : 4096u) - 1u);
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    zero_fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
    install_failed = zero_fd < 0 || sigaction(SIGBUS, &sa, &previous) != 0;
}

/* A free slot, reserved; NULL when none can be had. */
static fc_map_guard *reserve(void)
{
    size_t c, k;
    fc_map_guard *g = NULL;
    pthread_mutex_lock(&registry);
    for (c = 0; c < CHUNKS && g == NULL; c++) {
        if (chunks[c] == NULL) {
            fc_map_guard *chunk = (fc_map_guard *)calloc(SLOTS, sizeof *chunk);
            if (chunk == NULL)
                break;
            STORE(&chunks[c], chunk);
        }
        for (k = 0; k < SLOTS; k++)
            /* (atomic: a slot reserved by another thread becomes
             * guarding outside the lock) */
            if (LOAD(&chunks[c][k].state) == 0) {
                g = &chunks[c][k];
                STORE(&g->state, 1);
                break;
            }
    }
    pthread_mutex_unlock(&registry);
    return g;
}

/* Maps the file open on fd and registers the map; fd is the map's from
 * here on (closed with it, or now on failure). */
static fc_status map_own_fd(int fd, fc_mapped_file *map, fc_map_guard **guard, fc_error *err)
{
    fc_status s;
    fc_map_guard *g;
    s = fc_map_fd(fd, map, err);
    if (s != FC_OK || map->data == NULL) {
        close(fd);
        return s;
    }
    (void)pthread_once(&installed, install);
    if (install_failed || (g = reserve()) == NULL) {
        close(fd);
        return FC_OK; /* unguarded, as fc_map_file alone */
    }
    g->fd = fd;
    g->base = (uintptr_t)map->data;
    g->size = map->size;
    g->at = 0;
    g->changed = 0;
    STORE(&g->state, 2);
    *guard = g;
    return FC_OK;
}

static fc_status sys_error(fc_error *err, const char *what, int e)
{
    fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, FC_NO_INDEX);
    fc_msg_str(&m, what);
    fc_msg_str(&m, strerror(e));
    if (err != NULL)
        err->sys_errno = e;
    return FC_ERR_IO;
}

fc_status fc_input_map(const char *path, fc_mapped_file *map, fc_map_guard **guard,
                       fc_error *err)
{
    int fd;
    *guard = NULL;
    map->data = NULL;
    map->size = 0;
    if (strcmp(path, "-") == 0) {
        fc_msg m = fc_error_begin(err, FC_ERR_UNSUPPORTED, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "standard input is read in order, from its first byte: it cannot be "
                       "mapped or read in splits");
        return FC_ERR_UNSUPPORTED;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO: no wait for a writer */
    if (fd < 0)
        return sys_error(err, "cannot open: ", errno);
    return map_own_fd(fd, map, guard, err);
}

fc_status fc_input_map_fd(int fd, fc_mapped_file *map, fc_map_guard **guard, fc_error *err)
{
    int own;
    *guard = NULL;
    map->data = NULL;
    map->size = 0;
    /* the same open file, not a second open of its name (which could find
     * another file there) */
    own = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (own < 0)
        return sys_error(err, "cannot map: ", errno);
    return map_own_fd(own, map, guard, err);
}

void fc_input_unmap(fc_mapped_file *map, fc_map_guard *guard)
{
    if (guard != NULL) {
        /* the fd first: once the slot is free, another thread's map may
         * take it and its fd (closing guard->fd after would close that) */
        int fd = guard->fd;
        pthread_mutex_lock(&registry);
        STORE(&guard->state, 0);
        pthread_mutex_unlock(&registry);
        close(fd);
    }
    fc_unmap_file(map);
}

int fc_input_map_changed(const fc_map_guard *guard, uint64_t *at)
{
    if (guard == NULL || !LOAD(&guard->changed))
        return 0;
    if (at != NULL)
        *at = guard->at;
    return 1;
}

int fc_input_map_shrank(const fc_map_guard *guard, uint64_t *at)
{
    struct stat st;
    if (fc_input_map_changed(guard, at))
        return 1;
    if (guard == NULL || fstat(guard->fd, &st) != 0 || (uint64_t)st.st_size >= guard->size)
        return 0;
    /* cut inside the last page: its tail read as zeros, without a fault */
    if (at != NULL)
        *at = (uint64_t)st.st_size;
    return 1;
}

fc_status fc_input_changed_error(fc_error *err, const char *path, uint64_t mapped, uint64_t at)
{
    struct stat st;
    fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, at);
    fc_msg_str(&m, "the file changed size during the read: ");
    fc_msg_u64(&m, mapped);
    fc_msg_str(&m, " bytes when it was opened");
    if (path != NULL && stat(path, &st) == 0) {
        fc_msg_str(&m, ", ");
        fc_msg_u64(&m, (uint64_t)st.st_size);
        fc_msg_str(&m, " now");
    }
    fc_msg_str(&m, "; the bytes from offset ");
    fc_msg_u64(&m, at);
    fc_msg_str(&m, " were gone when the read reached them (a file is read as it was when "
                   "opened: write a new file and rename it over the old one)");
    return FC_ERR_IO;
}

#define RELEASE_STEP ((uint64_t)16 << 20)
#define RELEASE_LAG ((uint64_t)16 << 20)

void fc_input_map_release(const fc_mapped_file *map, uint64_t *released, uint64_t at)
{
    uint64_t upto, from;
    long page;
    if (map->data == NULL || at < *released + RELEASE_STEP + RELEASE_LAG || at > map->size)
        return;
    page = sysconf(_SC_PAGESIZE);
    if (page <= 0)
        return;
    upto = (at - RELEASE_LAG) / (uint64_t)page * (uint64_t)page;
    from = *released / (uint64_t)page * (uint64_t)page;
    if (upto > from)
        (void)madvise((void *)(uintptr_t)(map->data + from), (size_t)(upto - from), MADV_DONTNEED);
    *released = upto;
}

void fc_input_map_release_range(const fc_mapped_file *map, uint64_t from, uint64_t to)
{
    long page = sysconf(_SC_PAGESIZE);
    if (map->data == NULL || page <= 0 || to > map->size)
        return;
    from = (from + (uint64_t)page - 1) / (uint64_t)page * (uint64_t)page;
    to = to / (uint64_t)page * (uint64_t)page;
    if (to > from)
        (void)madvise((void *)(uintptr_t)(map->data + from), (size_t)(to - from), MADV_DONTNEED);
}
