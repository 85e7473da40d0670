/* featc convert from Arrow IPC back to TFRecords (convert_back.c), for
 * convert.c: the options the command line gave, and the entry points. */
#ifndef FEATC_CLI_CONVERT_BACK_H
#define FEATC_CLI_CONVERT_BACK_H

#include <featc/fc_input.h>

typedef struct convert_opts {
    fc_input_options read;   /* of TFRecord input; its compression also the output's */
    int compression_given;   /* -c given */
    const char *spec;        /* --spec (NULL: infer) */
    const char *message;     /* --message */
    const char *output;      /* -o */
    int stream;              /* --stream, or OUT ends in .arrows */
    int large;               /* --large: large_list, large_binary */
    int parquet;             /* OUT ends in .parquet or .pq */
    int codec;               /* --codec: Parquet's (FC_PARQUET_*) */
    uint64_t row_group_rows; /* --row-group-size */
    size_t page_bytes;       /* --page-size */
    size_t batch_size;       /* --batch-size */
    unsigned jobs;           /* -j: parse threads (1: this one) */
    int progress;            /* PROGRESS_* */
    int nfiles;
    char **files;
    int *fds;                /* each file opened once, for the whole job (-1: "-") */
    int *arrow;              /* each file starts as Arrow IPC does (cli_arrow_input) */
} convert_opts;

/* 1 when the file open on fd (path names it) starts as an Arrow IPC file or
 * stream does, 0 when not (a TFRecord file, or standard input, fd -1:
 * never Arrow), -1 with the error printed when it cannot be read. */
int cli_arrow_input(int fd, const char *path);
/* The Arrow IPC files o->files (open on o->fds) into the TFRecord file
 * o->output through o->spec's serializer: the exit status, errors
 * printed. */
int cli_arrow_to_records(const convert_opts *o);

#endif /* FEATC_CLI_CONVERT_BACK_H */
