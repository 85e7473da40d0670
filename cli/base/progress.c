/* Progress on standard error: see progress.h. */
#include "base/progress.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FIRST_DELAY 0.5 /* s before the first line (automatic mode) */
#define INTERVAL 0.25   /* s between lines */
#define CHECK_EVERY 256 /* records between looks at the clock */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void progress_start(progress *p, const char *cmd, char *const *files, int n, int mode,
                    int out_matters)
{
    int k;
    memset(p, 0, sizeof *p);
    p->cmd = cmd;
    p->forced = mode == PROGRESS_FORCE;
    p->tty = isatty(STDERR_FILENO);
    p->on = p->forced || (mode == PROGRESS_AUTO && isatty(STDERR_FILENO) &&
                          !(out_matters && isatty(STDOUT_FILENO)));
    if (!p->on)
        return;
    for (k = 0; k < n; k++) {
        struct stat st;
        if (strcmp(files[k], "-") == 0 || stat(files[k], &st) != 0 || !S_ISREG(st.st_mode)) {
            p->total = 0;
            break;
        }
        p->total += (uint64_t)st.st_size;
    }
    p->start = now();
    p->next = p->start + (p->forced ? 0.0 : FIRST_DELAY);
}

/* 12.3 MB, with B/kB/MB/GB/TB by powers of 1000 */
static void print_size(double v)
{
    static const char *const unit[] = {"B", "kB", "MB", "GB", "TB"};
    int u = 0;
    while (v >= 1000 && u < 4) {
        v /= 1000;
        u++;
    }
    if (u == 0)
        fprintf(stderr, "%.0f %s", v, unit[u]);
    else
        fprintf(stderr, "%.1f %s", v, unit[u]);
}

static void show(progress *p, double t)
{
    double done = (double)(p->before + p->bytes), secs = t - p->start;
    double rate = secs > 0 ? done / secs : 0;
    fprintf(stderr, "%sfeatc %s: ", p->tty ? "\r" : "", p->cmd);
    print_size(done);
    if (p->total > 0) {
        double frac = done / (double)p->total;
        fputs(" of ", stderr);
        print_size((double)p->total);
        fprintf(stderr, " (%.0f%%)", frac > 1 ? 100.0 : frac * 100);
    }
    fprintf(stderr, ", %llu record%s", (unsigned long long)p->records, p->records == 1 ? "" : "s");
    if (rate > 0) {
        fputs(", ", stderr);
        print_size(rate);
        fputs("/s", stderr);
        if (p->total > 0 && done < (double)p->total) {
            unsigned long left = (unsigned long)(((double)p->total - done) / rate + 0.5);
            if (left >= 3600)
                fprintf(stderr, ", %lu:%02lu:%02lu left", left / 3600, left / 60 % 60, left % 60);
            else
                fprintf(stderr, ", %lu:%02lu left", left / 60, left % 60);
        }
    }
    if (p->tty)
        fputs("\033[K", stderr); /* the rest of a longer line before */
    else
        fputc('\n', stderr);
    fflush(stderr);
    p->shown = 1;
}

/* The line, when it is time for the next one. */
static void show_if_due(progress *p)
{
    double t = now();
    if (t >= p->next) {
        show(p, t);
        p->next = t + INTERVAL;
    }
}

void progress_record(progress *p, uint64_t file_bytes)
{
    if (!p->on)
        return;
    p->records++;
    p->bytes = file_bytes;
    if (++p->tick < CHECK_EVERY)
        return;
    p->tick = 0;
    show_if_due(p);
}

void progress_part(progress *p, uint64_t bytes, uint64_t records)
{
    if (!p->on)
        return;
    p->before += bytes;
    p->records += records;
    show_if_due(p);
}

void progress_file_done(progress *p, uint64_t file_bytes)
{
    if (!p->on)
        return;
    p->before += file_bytes;
    p->bytes = 0;
}

void progress_clear(progress *p)
{
    if (p->on && p->tty && p->shown) {
        fputs("\r\033[K", stderr);
        p->shown = 0;
    }
}

void progress_end(progress *p)
{
    if (!p->on)
        return;
    if (p->forced) {
        show(p, now());
        if (p->tty)
            fputc('\n', stderr);
    } else {
        progress_clear(p);
    }
    fflush(stderr);
}
