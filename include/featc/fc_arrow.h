/* featc runtime, hosted: batches as Apache Arrow arrays, through Arrow's C
 * Data Interface (https://arrow.apache.org/docs/format/CDataInterface.html).
 *
 * A batch (fc_batch.h, bound with FC_BATCH_RAGGED) becomes one struct
 * array, a row per record and a child per column, and its schema (bound
 * with FC_BATCH_PACKED too, rows and fixed frames are viewed, not packed
 * here).  The
 * mapping follows tfx-bsl's decoders where they have one and keeps
 * TensorFlow's shapes where the spec gives them (docs/arrow.md has the
 * table).  Lists and bytes have 32-bit offsets (list "+l", binary "z":
 * what every Arrow implementation reads), or with FC_ARROW_LARGE 64-bit
 * ones (large_list "+L", large_binary "Z": tfx-bsl's types); a batch whose
 * offsets would pass 2^31 without it is FC_ERR_UNSUPPORTED.
 *
 *   int64, float, bytes        int64 "l", float32 "f", binary "z"
 *   FixedLen [] / [d1, ...]    the value / fixed_size_list<d1> of ... of it
 *   FixedLenSequence (rows)    list<row>, a row as FixedLen's
 *   VarLen                     list<value>
 *   SparseFeature              struct<indices: list<fixed_size_list<
 *                              int64, rank>>, values: list<value>>
 *   RaggedFeature              list<list<...<value>>>, a level per
 *                              partition
 *   feature list, fixed frame  list<frame>, a frame as FixedLen's
 *   feature list, VarLen       list<list<value>> (frames)
 *   hash_buckets N             also KEY/buckets: the ids, laid out as the
 *                              values
 *
 * Columns are named by their keys; a feature list whose key a context
 * feature also has is "feature_lists/KEY".  Two columns of one name (a
 * key that is another's KEY/buckets, say) are FC_ERR_UNSUPPORTED.
 *
 * No value is null: TensorFlow's parse gives every record a value (a
 * default, an empty list), or fails.  Memory: this layer allocates (the
 * array and schema nodes, the offsets it computes, the bytes it copies);
 * numeric values and the offsets the batch already holds (row splits) are
 * not copied (but 32-bit offsets are narrowed copies): the arrays view the
 * batch's block, which the export takes over and frees when the last
 * array viewing it is released. */
#ifndef FEATC_FC_ARROW_H
#define FEATC_FC_ARROW_H

#include <stdint.h>
#include <stdio.h>

#include "fc_batch.h"
#include "fc_input.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The C Data Interface's structs, as the specification defines them. */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

#ifndef ARROW_C_STREAM_INTERFACE
#define ARROW_C_STREAM_INTERFACE

struct ArrowArrayStream {
    int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
    int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
    const char *(*get_last_error)(struct ArrowArrayStream *);
    void (*release)(struct ArrowArrayStream *);
    void *private_data;
};

#endif /* ARROW_C_STREAM_INTERFACE */

/* flags: 64-bit offsets (large_list, large_binary) instead of 32-bit ones. */
#define FC_ARROW_LARGE 1u

/* Buffers this layer allocates are aligned to this. */
#define FC_ARROW_ALIGN 64u

/* The schema of a message's batches (md for an Example, else sd): a struct
 * "+s" with a child per column, named by the feature key.  FC_OK, or
 * FC_ERR_NO_MEMORY / FC_ERR_UNSUPPORTED (err says which feature). */
int fc_arrow_schema(const fc_message_desc *md, const fc_seq_desc *sd, unsigned flags,
                    struct ArrowSchema *out, fc_error *err);

/* The batch of n records that fc_batch_parse (md) or fc_batch_parse_seq
 * (sd) wrote into cols, bound by fc_batch_bind(_seq) with FC_BATCH_RAGGED
 * (and FC_BATCH_SPARSE if wanted), as a struct array of n rows (and, when
 * schema is not NULL, its schema).  block is the memory the columns point
 * into: the arrays take it over and call free_block(block) when the last
 * of them is released (free_block NULL: the caller keeps block alive until
 * then).  On error nothing is exported and block stays the caller's. */
int fc_arrow_export(const fc_message_desc *md, const fc_seq_desc *sd, unsigned flags,
                    const fc_column *cols, size_t n, void *block, void (*free_block)(void *),
                    struct ArrowArray *out, struct ArrowSchema *schema, fc_error *err);

/* A stream of the batches of files (md or sd): the paths read in turn with
 * fc_input (opt: compression, CRC policy, a part of each; not an index),
 * up to batch_size records a batch (a batch may take records of several
 * files).  get_next returns 0 with a batch, or with out->release NULL at
 * the end; EIO when a file fails (cannot be opened, is damaged) and EINVAL
 * when a record does not parse, get_last_error giving featc's message
 * ("record I (offset O of PATH): " and TensorFlow's text, or "PATH: " and
 * the reader's).  A record that does not parse fails its batch, which is
 * not handed out; a damaged file ends its batch at the damage, and the
 * error is the next call's; after either the next call goes on (after a
 * damaged file: with the next file).  The stream allocates: its records'
 * copies, each batch's block. */
int fc_arrow_stream(const fc_message_desc *md, const fc_seq_desc *sd, unsigned flags,
                    const char *const *paths, size_t npaths, size_t batch_size,
                    const fc_input_options *opt, struct ArrowArrayStream *out, fc_error *err);

/* The same stream with hooks (any may be NULL) and threads: parse reads a
 * record into a struct of the message (the batch then built from the
 * structs, by fc_batch_parse_each: for a message described at run time,
 * which has no parse function of its own; its error's text is the
 * single-record one); worker (0 .. threads-1) says which thread calls, for
 * scratch of its own.  record and file_done are told the bytes read of the
 * current file (as stored) after each record (or each run of records read
 * at once) and when a file ends, for progress, on the thread that calls
 * get_next.  threads > 1: the batches
 * are parsed and exported on that many threads (up to 2 x threads batches
 * read ahead) and handed out in order, with one thread's outcomes. */
typedef struct fc_arrow_stream_hooks {
    int (*parse)(void *ctx, unsigned worker, void *msg, const void *data, size_t len,
                 fc_error *err);
    void (*record)(void *ctx, uint64_t file_bytes);
    void (*file_done)(void *ctx, const char *path, uint64_t file_bytes);
    void *ctx;
    unsigned threads;
    /* An Example's key lookup (featc_dynamic_lookup) and its context: the
     * records the direct path covers go straight into the columns
     * (fc_batch_parse_each_direct), the rest to parse.  For a
     * SequenceExample, any lookup (its descriptor's context_lookup, say)
     * turns on its direct path (fc_batch_parse_each_seq_direct), which
     * finds keys by the descriptor's own lookups.  NULL: parse only. */
    fc_ex_lookup_fn lookup;
    const void *lookup_ctx;
} fc_arrow_stream_hooks;
int fc_arrow_stream_hooked(const fc_message_desc *md, const fc_seq_desc *sd, unsigned flags,
                           const char *const *paths, size_t npaths, size_t batch_size,
                           const fc_input_options *opt, const fc_arrow_stream_hooks *hooks,
                           struct ArrowArrayStream *out, fc_error *err);

/* Arrays into Arrow's IPC format: FC_ARROW_IPC_FILE (the file format,
 * "ARROW1", a footer for random access: .arrow, .feather) or
 * FC_ARROW_IPC_STREAM (the streaming format: .arrows).  open writes the
 * schema (a struct "+s", a field per child; it must stay alive until
 * close), write a record batch per struct array, close the end (and the
 * footer) and frees the writer.  The writer knows the types
 * fc_arrow_export gives: int64, float32, binary, large_binary, list, large_list,
 * fixed_size_list and struct.  FC_OK, FC_ERR_IO (f could not be written),
 * FC_ERR_NO_MEMORY, FC_ERR_ARG / FC_ERR_UNSUPPORTED (an array or schema
 * it cannot write: nothing of it is written).  It allocates its metadata
 * and lists of buffers; it neither closes nor flushes f. */
#define FC_ARROW_IPC_FILE 0
#define FC_ARROW_IPC_STREAM 1

typedef struct fc_arrow_ipc fc_arrow_ipc;

int fc_arrow_ipc_open(fc_arrow_ipc **w, FILE *f, int format, const struct ArrowSchema *schema,
                      fc_error *err);
int fc_arrow_ipc_write(fc_arrow_ipc *w, const struct ArrowArray *batch, fc_error *err);
int fc_arrow_ipc_close(fc_arrow_ipc *w, fc_error *err);
/* Bytes written so far. */
uint64_t fc_arrow_ipc_bytes(const fc_arrow_ipc *w);

/* Arrow IPC read back: the bytes of a whole IPC file or stream (data, len,
 * which must outlive the reader and every array it gives; a file mapped
 * into memory, say).  open reads the schema; read_schema gives it (a
 * struct "+s", a child per field); read_next gives each record batch as a
 * struct array of views into data (FC_OK), then FC_END.  The bytes are
 * untrusted: a damaged or truncated input is FC_ERR_PARSE, a feature this
 * reader does not read (dictionaries, compressed bodies, view and other
 * types, the other byte order) FC_ERR_UNSUPPORTED, each with err saying
 * what and at which byte.  Types read: int8..int64 and uint8..uint64,
 * float16/32/64 (as formats; featc converts int64 and float32),
 * binary, utf8 and their large forms, list, large_list, fixed_size_list,
 * struct. */
typedef struct fc_arrow_ipc_reader fc_arrow_ipc_reader;

int fc_arrow_ipc_read_open(fc_arrow_ipc_reader **r, const void *data, size_t len,
                           fc_error *err);
int fc_arrow_ipc_read_schema(const fc_arrow_ipc_reader *r, struct ArrowSchema *out,
                             fc_error *err);
int fc_arrow_ipc_read_next(fc_arrow_ipc_reader *r, struct ArrowArray *out, fc_error *err);
/* Where the next message starts (for errors). */
uint64_t fc_arrow_ipc_read_offset(const fc_arrow_ipc_reader *r);
void fc_arrow_ipc_read_close(fc_arrow_ipc_reader *r);

/* Arrow rows back into a message's struct, for its serializer (the way
 * from Arrow to TFRecords).  open matches schema (a struct, a column per
 * feature by name) to the spec's mapping: every feature has its column of
 * the mapped shape, and every column is a feature's (or a KEY/buckets
 * column, which is not read: the parser computes bucket ids); in place of
 * a mapped type, any integer (a uint64 past int64's range is an error),
 * float64 (rounded to float32, as TensorFlow stores it), binary, utf8 and
 * large_utf8, and list and large_list for each other are accepted; a
 * mismatch is FC_ERR_ARG naming the column.  A RaggedFeature's nested
 * lists give its partition fields their encodings and its value field the
 * values.  get fills msg (md->size or sd->size bytes, cleared first) with
 * row `row` of batch (a struct array of schema): values copied, bytes
 * viewing the batch's buffers (valid while it is), counts checked against
 * the spec's bounds (r holds a row's scratch: one thread at a time).  A
 * SparseFeature's entries take the order of its fields that are features
 * of their own (TensorFlow sorts the entries, so the record's order may be
 * lost), or the row is refused when they disagree.  A null is an absent
 * feature (a FixedLen gets its
 * default; a VarLen, a SparseFeature, an allow_missing list nothing); a
 * null for a required feature, or inside a value, is FC_ERR_ARG, naming
 * column and row.  Memory: open allocates the column table. */
typedef struct fc_arrow_rows fc_arrow_rows;

int fc_arrow_rows_open(fc_arrow_rows **r, const fc_message_desc *md, const fc_seq_desc *sd,
                       const struct ArrowSchema *schema, fc_error *err);
int fc_arrow_rows_get(fc_arrow_rows *r, const struct ArrowSchema *schema,
                      const struct ArrowArray *batch, int64_t row, void *msg, fc_error *err);
void fc_arrow_rows_close(fc_arrow_rows *r);
/* Row `row` of batch straight into the serialized tf.train.Example that
 * fc_arrow_rows_get and fc_ex_serialize (FC_OMIT_DEFAULTS) give, with no
 * struct between, for the tables of the plain case: an Example whose
 * every feature is a scalar FixedLen or a VarLen without hash buckets,
 * one-hot or `as`, its column of the mapped type itself (int64, float,
 * binary or utf8, lists of them).  Returns the record's size, written to
 * buf when it is at most cap (else nothing is written: call again with
 * the room), or 0 for a row it does not take: any row of another table,
 * or one whose general path ends in an error (a null for a required
 * feature or inside a list, a count past the spec's bound, a record past
 * FC_MAX_MESSAGE_SIZE); give those to fc_arrow_rows_get and the
 * serializer.  Allocates nothing; r's scratch, one thread at a time. */
size_t fc_arrow_rows_serialize(fc_arrow_rows *r, const struct ArrowSchema *schema,
                               const struct ArrowArray *batch, int64_t row, void *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_ARROW_H */
