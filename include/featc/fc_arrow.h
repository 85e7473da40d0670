/* featc runtime, hosted: batches as Apache Arrow arrays, through Arrow's C
 * Data Interface (https://arrow.apache.org/docs/format/CDataInterface.html).
 *
 * A batch (fc_batch.h, bound with FC_BATCH_RAGGED) becomes one struct
 * array, a row per record and a child per column, and its schema.  The
 * mapping follows tfx-bsl's decoders where they have one (64-bit offsets
 * throughout: large_list, large_binary) and keeps TensorFlow's shapes
 * where the spec gives them (docs/arrow.md has the table):
 *
 *   int64, float, bytes        int64 "l", float32 "f", large_binary "Z"
 *   FixedLen [] / [d1, ...]    the value / fixed_size_list<d1> of ... of it
 *   FixedLenSequence (rows)    large_list<row>, a row as FixedLen's
 *   VarLen                     large_list<value>
 *   SparseFeature              struct<indices: large_list<fixed_size_list<
 *                              int64, rank>>, values: large_list<value>>
 *   RaggedFeature              large_list<large_list<...<value>>>, a level
 *                              per partition
 *   feature list, fixed frame  large_list<frame>, a frame as FixedLen's
 *   feature list, VarLen       large_list<large_list<value>> (frames)
 *   hash_buckets N             also KEY/buckets: the ids, laid out as the
 *                              values
 *
 * No value is null: TensorFlow's parse gives every record a value (a
 * default, an empty list), or fails.  Memory: this layer allocates (the
 * array and schema nodes, the offsets it computes, the bytes it copies);
 * numeric values and the offsets the batch already holds (row splits) are
 * not copied: the arrays view the batch's block, which the export takes
 * over and frees when the last array viewing it is released. */
#ifndef FEATC_FC_ARROW_H
#define FEATC_FC_ARROW_H

#include <stdint.h>

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

/* Buffers this layer allocates are aligned to this. */
#define FC_ARROW_ALIGN 64u

/* The schema of a message's batches (md for an Example, else sd): a struct
 * "+s" with a child per column, named by the feature key.  FC_OK, or
 * FC_ERR_NO_MEMORY / FC_ERR_UNSUPPORTED (err says which feature). */
int fc_arrow_schema(const fc_message_desc *md, const fc_seq_desc *sd, struct ArrowSchema *out,
                    fc_error *err);

/* The batch of n records that fc_batch_parse (md) or fc_batch_parse_seq
 * (sd) wrote into cols, bound by fc_batch_bind(_seq) with FC_BATCH_RAGGED
 * (and FC_BATCH_SPARSE if wanted), as a struct array of n rows (and, when
 * schema is not NULL, its schema).  block is the memory the columns point
 * into: the arrays take it over and call free_block(block) when the last
 * of them is released (free_block NULL: the caller keeps block alive until
 * then).  On error nothing is exported and block stays the caller's. */
int fc_arrow_export(const fc_message_desc *md, const fc_seq_desc *sd, const fc_column *cols,
                    size_t n, void *block, void (*free_block)(void *), struct ArrowArray *out,
                    struct ArrowSchema *schema, fc_error *err);

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
int fc_arrow_stream(const fc_message_desc *md, const fc_seq_desc *sd, const char *const *paths,
                    size_t npaths, size_t batch_size, const fc_input_options *opt,
                    struct ArrowArrayStream *out, fc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_ARROW_H */
