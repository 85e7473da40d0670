/* The spec compiler's stages and their narrow interfaces:
 *
 *   source text --fcc_parse()--> ast_spec --fcc_check()--> schema --fcc_emit_c()--> C
 *
 * The library's public face is include/featc/featc.h (compile.c); this
 * header is internal, and every symbol it exports is prefixed fcc_.
 * Everything a compilation allocates lives in one arena (struct pool) that is
 * dropped at the end; diagnostics go to the caller's callback (or nowhere)
 * through struct diag.  Nothing here exits the process.
 */
#ifndef FEATC_SPEC_H
#define FEATC_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#include <featc/fc_example.h>
#include <featc/featc.h>

/* ------------------------------------------------------------ memory */

struct pool_block;
typedef struct pool {
    struct pool_block *head;
    int failed; /* an allocation failed; results are unusable */
} pool;

void fcc_pool_init(pool *p);
void fcc_pool_free(pool *p);
void *fcc_pool_alloc(pool *p, size_t n);   /* zeroed; NULL only when memory runs out */
char *fcc_pool_strndup(pool *p, const char *s, size_t n);

/* A growing text buffer (malloc; the owner frees s).  After a failed
 * allocation `failed` is set and later writes do nothing. */
typedef struct sbuf {
    char *s;     /* NUL-terminated once anything was written */
    size_t n, cap;
    int failed;
} sbuf;

void fcc_sb_put(sbuf *b, const char *s, size_t n);
/* The length (1 to 4) of the well-formed UTF-8 character at p (n bytes
 * there), its code point in *cp; 0 when none starts there (RFC 3629: no
 * over-long form, no surrogate, nothing past U+10FFFF, no lead byte past
 * 0xf4). */
size_t fcc_utf8_at(const unsigned char *p, size_t n, unsigned long *cp);
void fcc_sb_str(sbuf *b, const char *s);
/* s[0..n) in double quotes: '"' and '\\' escaped, other bytes outside
 * printable ASCII as \ooo (octal: protobuf's text format) or \xHH (a spec). */
void fcc_sb_quoted(sbuf *b, const char *s, size_t n, int octal);
void fcc_sb_vprintf(sbuf *b, const char *fmt, va_list ap);
void fcc_sb_printf(sbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ------------------------------------------------------------ diagnostics */

typedef struct spec_loc {
    int first_line, first_column, last_line, last_column; /* 1-based, last inclusive */
} spec_loc;

#define DIAG_MAX_ERRORS 20

typedef struct diag {
    featc_diag_fn fn;    /* NULL: count only */
    void *ctx;
    const char *path;    /* as given on the command line */
    const char *src;     /* the source text, for quoting lines */
    size_t src_len;
    int errors;
    int stopped;         /* DIAG_MAX_ERRORS reached */
    int tf;              /* featc_check_tf: warn where TensorFlow refuses what featc takes */
    int warnings;
    int oom_told;        /* a diagnostic could not be formatted: said once */
} diag;

void fcc_diag_init(diag *d, featc_diag_fn fn, void *ctx, const char *path, const char *src,
                   size_t len);
/* file:line:col: error: message, the source line and a caret under loc. */
void fcc_diag_error(diag *d, spec_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void fcc_diag_note(diag *d, spec_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* After an error: "note: TensorFlow rejects this with: "<TF's text>"" at
 * loc, where TF refuses the same feature description when it is built. */
/* In featc_check_tf only: "warning: MESSAGE" at loc, then TensorFlow's
 * text as fcc_diag_tf notes it (tf_text, already formatted). */
void fcc_diag_tf_warning(diag *d, spec_loc loc, const char *tf_text, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void fcc_diag_tf(diag *d, spec_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* "warning: MESSAGE" at loc, with the line and a caret (featc import's
 * fields it passes over). */
void fcc_diag_warning(diag *d, spec_loc loc, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* An error with no place in the source: "PATH: MESSAGE" (the message says
 * "error:" itself where it should). */
void fcc_diag_fail(diag *d, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* "N errors generated." when there were any. */
void fcc_diag_summary(diag *d);

/* ------------------------------------------------------------ syntax tree */

typedef enum ast_value_kind {
    AV_INT,    /* text: digits (decimal or 0x hex), neg for a leading '-' */
    AV_FLOAT,  /* text: a decimal floating literal */
    AV_NAME,   /* text: an identifier (nan, inf are the meaningful ones) */
    AV_STRING, /* text/len: the bytes, escapes resolved */
    AV_LIST    /* items */
} ast_value_kind;

typedef struct ast_value {
    ast_value_kind kind;
    spec_loc loc;
    int neg;
    const char *text;
    size_t len;
    struct ast_value *items; /* AV_LIST: first item */
    size_t nitems;
    struct ast_value *next;  /* next item in the enclosing list */
} ast_value;

typedef struct ast_dim {
    int unknown;             /* '?' */
    const char *text;
    spec_loc loc;
    struct ast_dim *next;
} ast_dim;

/* A word after a feature's type, or in a feature_lists header: a policy
 * (allow_missing, aligned, uniform), `hash_buckets N` (arg: N's text), or
 * one_hot / multi_hot. */
typedef struct ast_attr {
    const char *name;
    spec_loc loc;
    const char *arg;         /* hash_buckets: the integer's text, else NULL */
    spec_loc arg_loc;
    struct ast_attr *next;
} ast_attr;

/* A data key named by a SparseFeature (index or value key). */
typedef struct ast_key {
    const char *key;
    size_t len;
    spec_loc loc;
    struct ast_key *next;
} ast_key;

/* A partition of a RaggedFeature: `row_splits KEY max R`, ...,
 * `uniform_row_length L`. */
typedef struct ast_part {
    const char *kind;        /* row_splits, row_lengths, row_starts, row_limits,
                                value_rowids, uniform_row_length */
    spec_loc kind_loc;
    ast_key *key;            /* NULL for uniform_row_length */
    const char *max_text;    /* keyed partitions: the bound on rows */
    spec_loc max_loc;
    const char *length_text; /* uniform_row_length: the length */
    spec_loc length_loc;
    struct ast_part *next;
} ast_part;

typedef struct ast_feature {
    spec_loc loc;            /* the whole declaration */
    const char *key;         /* bytes of the key */
    size_t key_len;
    int key_quoted;
    spec_loc key_loc;
    const char *cname;       /* `as NAME`, or NULL */
    spec_loc cname_loc;
    const char *type;
    spec_loc type_loc;
    int has_shape;           /* brackets written, even empty */
    ast_dim *dims;           /* NULL for `[]` */
    spec_loc shape_loc;
    const char *max_text;    /* `max N`, or NULL */
    spec_loc max_loc;
    const char *as_type;     /* `as TYPE [dims]`: the tensor's type, or NULL */
    spec_loc as_loc;
    ast_dim *as_dims;        /* its shape (bytes: decode_raw), or NULL */
    spec_loc as_shape_loc;
    ast_value *def;          /* `= value`, or NULL */
    ast_attr *attrs;         /* policy words after the type, or NULL */
    int sparse;              /* `KEY : sparse TYPE [sizes] max N index ... value K` */
    spec_loc sparse_loc;
    ast_key *index_keys;     /* sparse: the index keys, in order */
    spec_loc index_loc;
    ast_key *value_key;      /* sparse, ragged: the value key (ragged: or NULL) */
    int ragged;              /* `KEY : ragged TYPE max N [value K] [partitions (...)]
                                [split int32|int64]` */
    spec_loc ragged_loc;
    ast_part *parts;         /* ragged: outermost first */
    spec_loc parts_loc;
    const char *split_text;  /* ragged: `split T`, or NULL */
    spec_loc split_loc;
    struct ast_feature *next;
} ast_feature;

typedef enum ast_message_kind { AM_EXAMPLE, AM_SEQUENCE_EXAMPLE } ast_message_kind;

/* A block of a sequence_example: `context { ... }`,
 * `feature_lists [max N] [policies] { ... }` or `segments { ... }`. */
typedef enum ast_block_kind { AB_CONTEXT, AB_FEATURE_LISTS, AB_SEGMENTS } ast_block_kind;

/* An item of a segments block: `WORD N;`, `WORD;`, `WORD max N;` or
 * `WORD NAME : TYPE [shape];` (a state when WORD is `state`). */
typedef struct ast_setting {
    const char *word;
    spec_loc loc;            /* the word */
    const char *value;       /* the integer's text, or NULL */
    spec_loc value_loc;
    int has_max;             /* `WORD max N` */
    struct ast_feature *state; /* `state NAME : TYPE [shape]`, or NULL */
    spec_loc item_loc;       /* the whole item */
    struct ast_setting *next;
} ast_setting;

typedef struct ast_block {
    ast_block_kind kind;
    spec_loc loc;            /* the keyword */
    const char *max_text;    /* feature_lists: `max N`, or NULL */
    spec_loc max_loc;
    ast_attr *attrs;         /* feature_lists: policy words */
    ast_feature *features;
    ast_setting *settings;   /* segments: the items in source order */
    struct ast_block *next;
} ast_block;

typedef struct ast_message {
    ast_message_kind kind;
    const char *name;
    spec_loc name_loc;
    spec_loc loc;
    ast_feature *features;   /* example */
    ast_block *blocks;       /* sequence_example, in source order */
    struct ast_message *next;
} ast_message;

typedef struct ast_spec {
    const char *package;     /* NULL when not declared */
    spec_loc package_loc;
    ast_message *messages;
} ast_spec;

/* Parses src; syntax errors go to d.  Returns the tree (possibly partial
 * after errors: check d->errors) or NULL when memory ran out. */
ast_spec *fcc_parse(pool *p, diag *d);

/* ------------------------------------------------------------ checked schema */

typedef struct schema_feature {
    const ast_feature *ast;
    const char *key;
    size_t key_len;
    const char *cname;
    const char *macro;       /* PACKAGE_MESSAGE_CNAME: the field number, and the
                                prefix of the feature's constants */
    fc_type type;
    fc_kind kind;
    unsigned rank;
    size_t dims[FC_MAX_RANK];
    size_t elems;            /* FIXED: product(shape); ROWS: row size; VARLEN: 1 */
    size_t max;              /* VARLEN values, ROWS rows; FIXED: elems */
    size_t storage;          /* bytes of struct storage for the values */
    /* feature lists of a sequence_example (list != 0): kind FIXED is a
     * FixedLenSequence (every frame holds `elems` values of shape dims),
     * VARLEN a VarLen per frame (at most `max` values per frame). */
    int list;
    size_t max_frames;       /* frames bound */
    int allow_missing;       /* FIXED lists: a missing list is empty, not an error */
    int uniform;             /* VARLEN lists: every frame holds the same number of values */
    size_t hash_buckets;     /* `hash_buckets N`: bucket ids beside the values; 0: none */
    /* SparseFeature (kind FC_KIND_SPARSE): rank index keys, dims the dense
     * size, max the entries; sparse_fields[0..rank) the index fields and
     * [rank] the value field (field numbers, VarLen, maybe hidden) */
    uint16_t sparse_fields[FC_MAX_RANK + 1];
    int already_sorted;
    int hidden;              /* a VarLen field read for a SparseFeature (1) or a
                                RaggedFeature (2) only */
    size_t owner;            /* hidden: the field of the feature that first read it */
    /* RaggedFeature (kind FC_KIND_RAGGED): sparse_fields[0] is the value
     * field; parts outermost first */
    unsigned nparts;
    struct schema_part {
        fc_part_kind kind;
        uint16_t field;
        size_t length, max_rows;
        const ast_part *ast;
    } parts[FC_MAX_RANK];
    int split64;
    int hot;                 /* 1: one_hot (a vector per value), 2: multi_hot (counts) */
    /* `as TYPE [dims]` (fc_as): the tensor's type; for bytes (decode_raw)
     * the shape of one value's tensor, as_elems its product (else 1) */
    int as;
    unsigned as_rank;
    size_t as_dims[FC_MAX_RANK];
    size_t as_elems;
    int has_default;
    size_t ndefault;         /* FIXED: elems; ROWS: 1 */
    int64_t *def_int;
    float *def_float;
    const char **def_bytes;
    size_t *def_bytes_len;
} schema_feature;

typedef struct schema_message {
    const ast_message *ast;
    int sequence;            /* a sequence_example */
    const char *name;
    const char *c_type;      /* package_name */
    const char *upper;       /* PACKAGE_NAME */
    size_t nfeatures;        /* example features, or context features */
    schema_feature *features;
    uint16_t *missing_order; /* indices sorted by key bytes */
    /* sequence_example: the feature lists (field numbers follow the context's) */
    size_t nlists;
    schema_feature *lists;
    uint16_t *list_missing_order; /* list indices sorted by key bytes */
    size_t max_frames;       /* the feature_lists bound */
    int aligned;             /* every list present in a record has the same frame count */
    /* sequence_example with a segments block: the segment batcher */
    int segments;
    size_t num_unroll, batch_size, capacity, key_max, record_max;
    int allow_small_batch, unpadded;
    size_t nstates;
    struct schema_state {
        const char *name;
        const char *macro;   /* PACKAGE_MESSAGE_STATE_NAME */
        fc_type type;
        unsigned rank;
        size_t dims[FC_MAX_RANK];
        size_t elems;
        const struct ast_feature *ast;
    } *states;
} schema_message;

typedef struct schema {
    const char *package;
    const char *upper;
    size_t nmessages;
    schema_message *messages;
} schema;

/* "int64", "float", "bytes": the spec's own spelling of a type. */
const char *fcc_type_word(fc_type t);

/* Semantic checks; errors go to d.  NULL when there were errors. */
schema *fcc_check(pool *p, diag *d, const ast_spec *ast, const char *default_package);

/* ------------------------------------------------------------ code generation */

typedef struct emit_options {
    const char *spec_name;   /* the spec path as written into the banner */
    const char *base;        /* output base name: BASE.h, BASE.c, BASE_main.c */
    int driver;              /* also write a driver main() */
    const char *driver_message; /* its message; NULL: the spec's first one */
    int python;              /* also write BASE_py.c, the CPython module */
} emit_options;

/* Writes the header, the source and (if asked) the driver into memory
 * buffers owned by p.  Output is a pure function of (schema, options). */
typedef struct emit_output {
    char *header;
    size_t header_len;
    char *source;
    size_t source_len;
    char *driver;
    size_t driver_len;
    char *python;
    size_t python_len;
} emit_output;

int fcc_emit_c(pool *p, const schema *s, const emit_options *o, emit_output *out);

/* featc export --tf: the spec's feature descriptions as TensorFlow's Python
 * (export.c), appended to b.  Returns 0 when memory ran out. */
int fcc_emit_tf(const schema *s, const char *spec_name, sbuf *b);
/* featc export --tfmd (export_tfmd.c): message `message` (NULL: the only
 * one) as a TFMD Schema in text format, appended to b; what TFMD cannot say
 * is a warning, or an error through d where the tensors would differ.
 * Returns 1, or 0 after errors. */
int fcc_emit_tfmd(const schema *s, const char *spec_name, const char *message, diag *d,
                  sbuf *b);
/* featc import --tfmd (tfmd_import.c): the schema in d's source as a spec
 * in package `package`, appended to out.  1, or 0 after errors through d. */
int fcc_tfmd_import(pool *p, diag *d, const featc_import_options *io, const char *package,
                    sbuf *out);
/* featc_tfmd_read (tfmd_import.c): the features of the schema in d's source
 * and what TFMD says of each, in p.  1, or 0 after errors through d. */
int fcc_tfmd_constraints(pool *p, diag *d, const char *environment, featc_tfmd_schema *out);

/* featc breaking (breaking.c): the changes from os (OLD, its notes through
 * dold) to ns (NEW, the findings through dn) that rules (1 << rule) ask
 * for; the number found. */
int fcc_breaking(const schema *os, diag *dold, const schema *ns, diag *dn, unsigned rules);
/* The mask of the comma-separated rule names (NULL or "all": every rule),
 * or 0 after an unknown name, reported through d. */
unsigned fcc_breaking_rules(const char *list, diag *d);

/* The embedded templates: fcc_template_message_h for templates/message.h,
 * and so on (build/gen/templates.h, made by compiler/gen/embed.c). */
#include "templates.h"

#endif /* FEATC_SPEC_H */
