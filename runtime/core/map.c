/* Files mapped into memory for the memory reader (fc_map_file, fc_map_fd). */
#include "featc/fc_record.h"

#include <errno.h>
#include <string.h>

#ifndef FC_NO_POSIX
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

/* -------------------------------------------------------------------- mmap */

fc_status fc_map_file(const char *path, fc_mapped_file *map, fc_error *err)
{
#ifndef FC_NO_POSIX
    fc_status s;
    int fd;
    map->data = NULL;
    map->size = 0;
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK); /* a FIFO: no wait for a writer */
    if (fd < 0) {
        fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, FC_NO_INDEX);
        if (err != NULL)
            err->sys_errno = errno;
        fc_msg_str(&m, "cannot open file (errno ");
        fc_msg_i64(&m, errno);
        fc_msg_str(&m, ")");
        return FC_ERR_IO;
    }
    s = fc_map_fd(fd, map, err);
    close(fd);
    return s;
#else
    (void)path;
    return fc_map_fd(-1, map, err);
#endif
}

fc_status fc_map_fd(int fd, fc_mapped_file *map, fc_error *err)
{
#ifndef FC_NO_POSIX
    struct stat st;
    void *p;
    map->data = NULL;
    map->size = 0;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "cannot stat (errno ");
        fc_msg_i64(&m, e);
        fc_msg_str(&m, ")");
        if (err != NULL)
            err->sys_errno = e;
        return FC_ERR_IO;
    }
    if (!S_ISREG(st.st_mode)) {
        /* no errno: none is the reason (an old one would be printed as it) */
        fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, S_ISDIR(st.st_mode) ? "is a directory"
                                           : "is not a regular file (a pipe, device or socket), "
                                             "which cannot be mapped");
        return FC_ERR_IO;
    }
    if (st.st_size == 0)
        return FC_OK;
    if ((uint64_t)st.st_size > (uint64_t)SIZE_MAX) {
        fc_msg m = fc_error_begin(err, FC_ERR_TOO_LARGE, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "file too large to map");
        return FC_ERR_TOO_LARGE;
    }
    p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        fc_msg m = fc_error_begin(err, FC_ERR_IO, FC_NO_INDEX, FC_NO_INDEX);
        if (err != NULL)
            err->sys_errno = e;
        fc_msg_str(&m, "mmap failed (errno ");
        fc_msg_i64(&m, e);
        fc_msg_str(&m, ")");
        return FC_ERR_IO;
    }
    (void)posix_madvise(p, (size_t)st.st_size, POSIX_MADV_SEQUENTIAL);
    map->data = (const uint8_t *)p;
    map->size = (size_t)st.st_size;
    return FC_OK;
#else
    (void)fd;
    map->data = NULL;
    map->size = 0;
    {
        fc_msg m = fc_error_begin(err, FC_ERR_UNSUPPORTED, FC_NO_INDEX, FC_NO_INDEX);
        fc_msg_str(&m, "mmap is not available in this build (FC_NO_POSIX)");
    }
    return FC_ERR_UNSUPPORTED;
#endif
}

void fc_unmap_file(fc_mapped_file *map)
{
#ifndef FC_NO_POSIX
    if (map != NULL && map->data != NULL)
        munmap((void *)(uintptr_t)map->data, map->size);
#endif
    if (map != NULL) {
        map->data = NULL;
        map->size = 0;
    }
}

