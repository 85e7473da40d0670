/* Output files that appear under their name only when complete
 * (fc_input.h): the command line's and the Python module's writers. */
#include "featc/fc_input.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The process's umask.  Setting it to read it back is a window in which
 * another thread's new file would get mode 0666, so Linux's status line
 * (since 4.7) is asked first. */
static mode_t current_umask(void)
{
    char line[128];
    unsigned m;
    mode_t mask;
    FILE *f = fopen("/proc/self/status", "r");
    if (f != NULL) {
        while (fgets(line, sizeof line, f) != NULL)
            if (sscanf(line, "Umask: %o", &m) == 1) {
                fclose(f);
                return (mode_t)(m & 0777);
            }
        fclose(f);
    }
    mask = umask(0);
    umask(mask);
    return mask;
}

/* The stream's buffer.  stdio's own is a block (4 KiB here), and a writer
 * that hands it buffers of a few KiB each (an Arrow IPC batch's
 * validity, offsets and values, column by column) makes two or three
 * write(2)s of each: 1,404 for a 5.7 MB file, a third of the time of a
 * convert to Arrow on a virtual machine where a system call is dear.
 * With 1 MiB, six.  It is one huge page (fc_huge_alloc): its first
 * touches as 4 KiB pages were 208 faults of a 58 ms convert to Parquet,
 * at about 10 us each on that machine. */
#define FC_OUTPUT_BUFFER ((size_t)2 << 20)

int fc_output_open(fc_output *out, const char *path)
{
    size_t n = strlen(path), cap;
    int fd, e;
    out->f = NULL;
    out->buf = NULL;
    if ((out->tmp = (char *)malloc(n + 8)) == NULL)
        return ENOMEM;
    memcpy(out->tmp, path, n);
    memcpy(out->tmp + n, ".XXXXXX", 8);
    if ((fd = mkstemp(out->tmp)) < 0) {
        e = errno;
        free(out->tmp);
        out->tmp = NULL;
        return e;
    }
    /* mkstemp makes 0600; the file gets what open() would give */
    if (fchmod(fd, 0666 & ~current_umask()) != 0 || (out->f = fdopen(fd, "wb")) == NULL) {
        e = errno;
        close(fd);
        unlink(out->tmp);
        free(out->tmp);
        out->tmp = NULL;
        return e;
    }
    /* (without the memory, stdio's own buffer: slower, not wrong) */
    cap = FC_OUTPUT_BUFFER; /* (a whole huge page: fc_huge_alloc gives cap back) */
    if ((out->buf = (char *)fc_huge_alloc(&cap)) != NULL &&
        setvbuf(out->f, out->buf, _IOFBF, FC_OUTPUT_BUFFER) != 0) {
        fc_huge_free(out->buf, FC_OUTPUT_BUFFER);
        out->buf = NULL;
    }
    return 0;
}

int fc_output_close(fc_output *out, const char *path, int ok)
{
    int e = 0;
    if (out->f == NULL)
        return 0;
    if (ferror(out->f))
        e = EIO;
    if (fclose(out->f) != 0 && e == 0)
        e = errno;
    if (ok && e == 0 && rename(out->tmp, path) != 0)
        e = errno;
    if (!ok || e != 0)
        unlink(out->tmp);
    fc_huge_free(out->buf, FC_OUTPUT_BUFFER); /* (after fclose, which flushed it) */
    free(out->tmp);
    out->f = NULL;
    out->tmp = NULL;
    out->buf = NULL;
    return ok ? e : 0;
}
