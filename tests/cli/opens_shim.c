/* LD_PRELOAD shim for tests/cli/opens.py: appends the name of every file
 * the program opens (open, openat, their 64 and _2 forms, fopen) as one
 * line to the file FEATC_OPENS_LOG names. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static void note(const char *path)
{
    static int (*real_open)(const char *, int, ...);
    const char *log = getenv("FEATC_OPENS_LOG");
    char line[4200];
    size_t n;
    int fd;
    if (log == NULL || path == NULL)
        return;
    if (real_open == NULL)
        *(void **)&real_open = dlsym(RTLD_NEXT, "open");
    n = strlen(path);
    if (n > sizeof line - 2)
        n = sizeof line - 2;
    memcpy(line, path, n);
    line[n++] = '\n';
    fd = real_open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        if (write(fd, line, n) < 0) {
        }
        close(fd);
    }
}

#define MODE_ARG(flags, mode)                                                                  \
    do {                                                                                       \
        if ((flags) & (O_CREAT | O_TMPFILE)) {                                                 \
            va_list ap;                                                                        \
            va_start(ap, flags);                                                               \
            mode = va_arg(ap, int);                                                            \
            va_end(ap);                                                                        \
        }                                                                                      \
    } while (0)

#define WRAP_OPEN(name)                                                                        \
    int name(const char *path, int flags, ...)                                                 \
    {                                                                                          \
        static int (*real)(const char *, int, ...);                                            \
        int mode = 0;                                                                          \
        MODE_ARG(flags, mode);                                                                 \
        if (real == NULL)                                                                      \
            *(void **)&real = dlsym(RTLD_NEXT, #name);                                         \
        note(path);                                                                            \
        return real(path, flags, mode);                                                        \
    }
#define WRAP_OPENAT(name)                                                                      \
    int name(int dir, const char *path, int flags, ...)                                        \
    {                                                                                          \
        static int (*real)(int, const char *, int, ...);                                       \
        int mode = 0;                                                                          \
        MODE_ARG(flags, mode);                                                                 \
        if (real == NULL)                                                                      \
            *(void **)&real = dlsym(RTLD_NEXT, #name);                                         \
        note(path);                                                                            \
        return real(dir, path, flags, mode);                                                   \
    }
WRAP_OPEN(open)
WRAP_OPEN(open64)
WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)

int __open_2(const char *path, int flags);
int __open_2(const char *path, int flags)
{
    return open(path, flags);
}
int __openat_2(int dir, const char *path, int flags);
int __openat_2(int dir, const char *path, int flags)
{
    return openat(dir, path, flags);
}

#define WRAP_FOPEN(name)                                                                       \
    FILE *name(const char *path, const char *mode)                                             \
    {                                                                                          \
        static FILE *(*real)(const char *, const char *);                                      \
        if (real == NULL)                                                                      \
            *(void **)&real = dlsym(RTLD_NEXT, #name);                                         \
        note(path);                                                                            \
        return real(path, mode);                                                               \
    }
WRAP_FOPEN(fopen)
WRAP_FOPEN(fopen64)
