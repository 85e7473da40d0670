/* featc runtime: the segment batcher, TensorFlow's SequenceQueueingStateSaver
 * (tf.contrib.training, batch_sequences_with_states) in plain C.
 *
 * It takes one parsed SequenceExample at a time with a unique key, splits its
 * feature lists into segments of num_unroll frames, and hands out minibatches
 * of batch_size segments taken from different examples: each slot carries the
 * example's key, next_key, segment index (`sequence`), segment count, valid
 * steps, total length, insertion index, its context copied, the segment of
 * every feature list ([batch_size, num_unroll, frame...]) and the states as
 * they stood after the previous segment (the initial states for segment 0).
 * save_state for every declared state, after each batch, makes the next
 * segment of each example available.
 *
 * Scheduling is TensorFlow's: a batch takes the ready segments with the
 * smallest insertion indices (the oldest examples first, so that an example's
 * segments come in adjacent batches), insertion indices count up from
 * -2^63, and at most `capacity` examples are in flight.
 *
 * The API is single-threaded and deterministic: where TensorFlow would block,
 * a call returns FC_AGAIN (insert: capacity reached, take a batch first;
 * next: too few examples for a full batch, insert more or close).  See
 * fc_seg_mt below for a producer thread and a consumer thread.
 *
 * All memory is the caller's (or a generated struct's); nothing allocates.
 * Generated code (a `segments { ... }` block in a sequence_example spec)
 * declares typed storage and wraps these calls.
 */
#ifndef FEATC_FC_SEGMENT_H
#define FEATC_FC_SEGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "fc_sequence.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FC_SEG_MAX_STATES 32
/* length argument of the insert calls: the example's frame count (TF's
 * pad=True with input_length=None). */
#define FC_SEG_LENGTH_FRAMES ((size_t)-1)
/* Room for a segment key "%05d_of_%05d:KEY" or "STOP:KEY", NUL included. */
#define FC_SEG_KEY_TEXT(key_max) ((size_t)(key_max) + 48u)

/* A state carried from segment to segment: `state NAME : TYPE[shape]`. */
typedef struct fc_state_desc {
    const char *name;
    fc_type type;              /* FC_TYPE_FLOAT or FC_TYPE_INT64 */
    unsigned rank;
    size_t dims[FC_MAX_RANK];
    size_t elems;              /* values per example: product(dims) */
    size_t offset;             /* offsetof in the states struct */
} fc_state_desc;

typedef struct fc_seg_config {
    const fc_seq_desc *seq;    /* the examples' message */
    size_t num_unroll;         /* frames per segment */
    size_t batch_size;         /* segments per batch */
    size_t capacity;           /* examples in flight at most (>= batch_size) */
    size_t key_max;            /* longest example key, in bytes */
    size_t record_max;         /* fc_seg_insert_record keeps a copy of each record
                                  of at most this many bytes; 0: not available */
    int allow_small_batch;     /* after close, a smaller final batch */
    int unpadded;              /* lists must already be a non-zero multiple of
                                  num_unroll (TF's pad=False); else they are
                                  padded with zeros (pad=True) */
    size_t nstates;            /* at least 1 */
    const fc_state_desc *states;
    size_t states_size;        /* sizeof the states struct (one example's states) */
} fc_seg_config;

/* One context feature or feature list of a batch.  Context: values
 * [batch_size][elems] (FIXED) or [batch_size][max] plus counts [batch_size]
 * (VARLEN).  Feature list: values [batch_size][num_unroll][elems] (FIXED) or
 * [batch_size][num_unroll][max] plus counts [batch_size][num_unroll]
 * (VARLEN).  Padding frames and unused values are zero ("" for bytes).  A
 * feature or list with `as TYPE [dims]` gives its typed tensor instead: its
 * fc_as_size(TYPE) elements, each value's dims (a decoded bytes value)
 * after the value's place, as its _as member in the struct lays them out. */
typedef struct fc_seg_column {
    void *values;
    size_t *counts;            /* VARLEN only, else NULL */
} fc_seg_column;

/* Where a batch goes: arrays of batch_size entries unless said otherwise. */
typedef struct fc_seg_out {
    size_t size;               /* slots filled by the last fc_seg_next */
    size_t *slot;              /* the example storage slot of each entry */
    fc_bytes *key;             /* "%05d_of_%05d:KEY" (segment, count, key) */
    fc_bytes *next_key;        /* the next segment's key, or "STOP:KEY" */
    char *key_text;            /* [batch_size][2][FC_SEG_KEY_TEXT(key_max)] */
    size_t *sequence;          /* this segment's index */
    size_t *sequence_count;    /* the example's number of segments */
    size_t *length;            /* valid steps in this segment */
    size_t *total_length;      /* the example's length */
    int64_t *insertion_index;
    fc_seg_column *context;    /* [seq->ncontext] */
    fc_seg_column *lists;      /* [seq->nlists] */
    void **states;             /* [nstates]: each [batch_size][elems] */
} fc_seg_out;

/* Per-example storage, capacity entries each. */
typedef struct fc_seg_slot {
    int64_t insertion_index;
    size_t prev, next;         /* the in-flight list (insertion order), or the free list */
    size_t sequence, count, length, key_len;
    int phase;                 /* free, ready, taken, finishing */
} fc_seg_slot;

typedef struct fc_seg_mem {
    fc_seg_slot *slots;        /* [capacity] */
    void *examples;            /* [capacity] message structs (seq->size each) */
    void *states;              /* [capacity] states structs (states_size each) */
    char *keys;                /* [capacity][key_max] */
    unsigned char *records;    /* [capacity][record_max], or NULL */
} fc_seg_mem;

typedef struct fc_segmenter {
    fc_seg_config cfg;
    fc_seg_mem mem;
    fc_seg_out out;
    size_t head, tail;         /* in-flight list, oldest first; SIZE_MAX: empty */
    size_t free_head;
    size_t in_flight;
    int closed;
    int outstanding;           /* a batch is out and not every state was saved */
    uint32_t saved;            /* bit i: state i saved for the batch that is out */
    int64_t next_index;
    uint64_t inserted;         /* examples accepted */
    uint64_t finished;         /* examples whose last segment's states were saved */
    uint64_t batches;          /* batches handed out */
} fc_segmenter;

/* Checks the configuration (TensorFlow's texts: "capacity must be larger or
 * equal to batch_size", "initial_states may not be empty: ..."), binds the
 * memory and the output arrays.  Returns FC_OK or FC_ERR_ARG. */
int fc_seg_init(fc_segmenter *s, const fc_seg_config *cfg, const fc_seg_mem *mem,
                const fc_seg_out *out, fc_error *err);

/* The same, with every per-example store and every output array carved from
 * one caller block (16-byte aligned pieces); returns the bytes needed, and
 * initialises only if size is enough (else err says FC_ERR_NO_MEMORY).  For
 * configurations chosen at run time. */
size_t fc_seg_init_block(fc_segmenter *s, const fc_seg_config *cfg, void *mem, size_t size,
                         fc_error *err);

/* Inserts one example: a parsed struct of cfg.seq's type, copied into the
 * batcher (bytes values keep pointing where they pointed: they must stay
 * valid until the example's last segment's states are saved; use
 * fc_seg_insert_record to have the batcher keep the bytes).  length: steps
 * before padding (at most the padded length), or FC_SEG_LENGTH_FRAMES.
 * initial: one states struct, or NULL for zeros.
 * Returns FC_OK; FC_AGAIN when `capacity` examples are in flight (nothing
 * changed: take a batch, save its states, retry); FC_ERR_CLOSED after
 * fc_seg_close; FC_ERR_ARG for an example TensorFlow rejects (feature lists
 * of different lengths, a length that is not a non-zero multiple of
 * num_unroll when unpadded, no frames, length past the padded length, a key
 * longer than key_max, a key already in flight); nothing changed then.
 * The typed tensors (`as`) of the copy are made from its values, so that a
 * struct built by hand gives them too: a value out of the type's range is
 * FC_ERR_PARSE, as the parse gives it. */
int fc_seg_insert(fc_segmenter *s, const void *key, size_t key_len, const void *example,
                  size_t length, const void *initial, fc_error *err);

/* The same from a serialized SequenceExample: copied into the example's own
 * record store (at most cfg.record_max bytes) and parsed there with
 * cfg.seq->parse, so that bytes values live as long as the example.  Parse
 * errors return FC_ERR_PARSE and change nothing. */
int fc_seg_insert_record(fc_segmenter *s, const void *key, size_t key_len, const void *record,
                         size_t len, size_t length, const void *initial, fc_error *err);

/* Hands out the next batch into the output arrays.  Returns FC_OK (out.size
 * entries, batch_size unless the final batch is small); FC_AGAIN when fewer
 * than batch_size examples are in flight and the batcher is open; FC_END when
 * closed and nothing is left; FC_ERR_INCOMPLETE when closed with segments
 * left that cannot fill a batch and allow_small_batch is off (they are
 * reported, never dropped silently); FC_ERR_STATE while a state of the
 * previous batch has not been saved. */
int fc_seg_next(fc_segmenter *s, fc_error *err);

/* Saves state `state` for the batch that is out: values holds out.size
 * entries of the state's shape, in batch order (they may be the output
 * array itself).  Entries whose segment was the example's last are ignored,
 * as in TensorFlow.  When every state is saved the examples move on: the
 * next segment of each becomes ready, finished examples leave (their
 * capacity, record store and bytes are free from then on).
 * FC_ERR_STATE: no batch out, or the state was saved already;
 * FC_ERR_ARG: no such state. */
int fc_seg_save_state(fc_segmenter *s, size_t state, const void *values, fc_error *err);

/* The index of the state named name, or -1 ("state was not declared"). */
int fc_seg_find_state(const fc_segmenter *s, const char *name);

/* No new examples from now on; the segments of those in flight are still
 * handed out. */
void fc_seg_close(fc_segmenter *s);

/* Examples in flight (inserted, last segment's states not saved yet). */
size_t fc_seg_in_flight(const fc_segmenter *s);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_SEGMENT_H */
