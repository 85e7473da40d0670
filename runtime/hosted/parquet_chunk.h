/* A column chunk's pages read into its column's Arrow nodes
 * (parquet_chunk.c), and the Parquet reader's state it shares with
 * parquet_read.c (the footer, the schema as Arrow nodes, the API, the
 * arrays handed out).  Private to the hosted layer. */
#ifndef FEATC_PARQUET_CHUNK_H
#define FEATC_PARQUET_CHUNK_H

#include "featc/fc_parquet.h"

#include <zlib.h>

#include "parquet_decode.h"
#include "thrift_read.h"

#define PR_DEPTH 64 /* schema elements nested at most this deep */

enum { N_STRUCT, N_LIST, N_LEAF };

/* An Arrow node the schema gives, and the arrays of the row group being
 * read into it. */
typedef struct pr_node {
    int kind;
    int nullable;
    int def_slot;  /* a definition level at least this: the node has a slot */
    int def_valid; /* ... at least this: the slot is not null */
    int lists;     /* lists above it: a repetition level at most this starts a slot */
    int parent;    /* -1: the root */
    int owner;     /* the first column below it, which builds its arrays */
    int col;       /* N_LEAF: its column */
    int first_kid, nkids; /* in pr_reader.kids */
    char *name;
    char fmt[4];
    /* the row group's arrays */
    size_t len, nulls;
    th_buf valid; /* a byte per slot (nodes nullable) */
    th_buf off;   /* N_LIST and byte-string leaves: int64 starts */
    th_buf vals;  /* N_LEAF: values (a byte per BOOLEAN), or the bytes */
} pr_node;

/* A leaf column: its path of nodes from the top-level one down. */
typedef struct pr_col {
    int node;
    int path[2 * PR_DEPTH];
    int npath;
    int type;           /* physical */
    size_t type_length; /* FIXED_LEN_BYTE_ARRAY's */
    size_t width;       /* bytes a value takes in vals (0: byte strings) */
    int half;           /* FLOAT16: decoded as 2-byte strings, kept as 2-byte values */
    int max_def, max_rep;
    /* rep_def[k]: the definition level at which the k-th list on the path
     * holds an element (where a repetition level k may go on) */
    int rep_def[2 * PR_DEPTH + 1];
    char *dotted;       /* its path in the schema (names joined by '.'), for messages */
    unsigned char *names; /* the same names, each a 4-byte length and its bytes, */
    size_t names_len;     /* against each chunk's path_in_schema */
} pr_col;

typedef struct pr_chunk {
    int type, codec;
    int64_t values, data_off, dict_off, size;
    uint64_t at; /* where the footer describes it */
} pr_chunk;

typedef struct pr_group {
    int64_t rows;
    pr_chunk *chunks; /* a chunk per column */
    uint64_t at;
} pr_group;

/* What a thread reading column chunks needs of its own: the pages'
 * scratch, an inflater, the decompressor's context and how far its reads
 * reached in the file. */
typedef struct pr_scratch {
    th_buf page, dict_page, dict, tmp, lev, scratch, built;
    size_t dict_n;
    int has_dict;
    int prev_dl; /* the chunk's last definition level, -1 before its first */
    z_stream z;
    int z_open;
    void *dctx;       /* opt.decompress's context */
    uint64_t reached; /* the end of the last page read */
} pr_scratch;

struct fc_parquet_reader {
    const unsigned char *data;
    size_t len;
    uint64_t data_end; /* where the footer starts */
    fc_parquet_read_options opt;
    pr_node *nodes;
    int nnodes;
    int *kids;
    pr_col *cols;
    int ncols;
    pr_group *groups;
    size_t ngroups, next;
    int64_t rows;
    pr_scratch own;     /* the caller's thread's */
    pr_scratch *s;      /* own, or (a view for another thread) that thread's */
    pr_scratch *others; /* opt.threads - 1 of them, made at the first use */
};

/* Reads group g's chunk of column c into the column's nodes (those it
 * owns; a column's nodes are no other column's, so threads may read
 * different columns at once, each through a view of the reader, a copy
 * whose s is its own): FC_OK, or the error in err. */
int pr_read_chunk(fc_parquet_reader *r, const pr_group *g, int c, fc_error *err);

/* "parquet: column 'PATH': WHAT (at byte AT)" (col -1: no column; at
 * UINT64_MAX: no offset): status. */
int pr_fail(fc_error *err, int status, const fc_parquet_reader *r, int col, uint64_t at,
            const char *what);

#endif
