/* Progress on standard error for the long record commands (cat to a file,
 * count, verify, infer, index): bytes read, records, rate and time left.
 *
 * Shown when standard error is a terminal (and, for cat, standard output is
 * not: the records would tear the line), after the command has run for half
 * a second, four times a second, on one line rewritten with \r and erased
 * at the end; never with -q; from the start, and kept at the end, with
 * --progress (for logs and tests: one line per update when standard error
 * is not a terminal).  The bytes are those of the files as
 * stored (compressed bytes for GZIP and ZLIB), so the fraction and the time
 * left are known when every input is a regular file. */
#ifndef FEATC_PROGRESS_H
#define FEATC_PROGRESS_H

#include <stdint.h>

typedef struct progress {
    int on;            /* updates are printed */
    int forced;        /* --progress */
    int tty;           /* standard error is a terminal: one line, rewritten */
    const char *cmd;
    uint64_t total;    /* bytes of every file; 0: unknown (a stream) */
    uint64_t before;   /* bytes of the files already read */
    uint64_t bytes;    /* of the file being read */
    uint64_t records;
    unsigned tick;     /* records since the clock was last read */
    double start, next;
    int shown;         /* a line is on the terminal */
} progress;

/* The modes of the -q / --progress options. */
enum { PROGRESS_AUTO, PROGRESS_QUIET, PROGRESS_FORCE };

/* Sets p up for cmd over files[0..n) ("-": standard input).  mode is one of
 * PROGRESS_*; out_matters: standard output carries the command's output to
 * a reader (cat), so no progress when it is a terminal. */
void progress_start(progress *p, const char *cmd, char *const *files, int n, int mode,
                    int out_matters);
/* One more record; file_bytes: bytes of the current file read so far. */
void progress_record(progress *p, uint64_t file_bytes);
/* A part read elsewhere (a split of the thread pool): its bytes as stored
 * and its records. */
void progress_part(progress *p, uint64_t bytes, uint64_t records);
/* The current file is done (its size counts as read). */
void progress_file_done(progress *p, uint64_t file_bytes);
/* Erases the line before something else is written to standard error. */
void progress_clear(progress *p);
/* Erases the line (or, forced, prints the last state and a newline). */
void progress_end(progress *p);

/* The options that set the mode, for every command that shows progress. */
#define PROGRESS_OPTIONS                                        \
    {"quiet", no_argument, NULL, 'q'},                          \
    {"progress", no_argument, NULL, CLI_OPT_PROGRESS}
#define PROGRESS_HELP                                                            \
    "  -q, --quiet             no progress on standard error\n"                    \
    "      --progress          progress on standard error even when it is not a\n" \
    "                          terminal (default: only when it is one)\n"

#endif /* FEATC_PROGRESS_H */
