/* featc runtime: the tf.train.SequenceExample wire format, as TensorFlow's
 * FastParseSequenceExample reads it (parse_single_sequence_example and
 * parse_sequence_example), for parsers generated from `sequence_example`
 * specs.
 *
 * A generated parser supplies two key lookups (a switch the compiler
 * writes) and a descriptor of its struct; fc_seq_parse walks the record
 * once, decodes every wanted feature straight into the struct and checks
 * the rules of the format and of the spec.  When anything is wrong it
 * re-walks what it found in TensorFlow's order, so that the error is the one
 * TensorFlow reports (its text, plus feature, frame index and byte offset).
 *
 * Nothing here allocates, touches stdio or keeps state between calls.  Bytes
 * values are views into the caller's record buffer.
 */
#ifndef FEATC_FC_SEQUENCE_H
#define FEATC_FC_SEQUENCE_H

#include <stddef.h>
#include <stdint.h>

#include "fc_example.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A feature list.  kind FC_KIND_FIXED: FixedLenSequenceFeature, every frame
 * holds exactly `elems` values of shape dims[0..rank); kind FC_KIND_VARLEN:
 * VarLenFeature, a frame holds 0..max values; kind FC_KIND_RAGGED:
 * RaggedFeature, each frame's values partitioned on their own, built from
 * the lists extra names.  Values are stored frame after frame:
 * [max_frames][elems] for FIXED, [max_frames][max] for VARLEN and RAGGED
 * (frame t starts at t * max), with the frame's count in counts[t]; a
 * RaggedFeature's partition q keeps size_t rows[max_frames] at its
 * rows_offset and splits [max_frames][max_rows + 1] at its splits_offset. */
typedef struct fc_list_desc {
    const char *key;           /* feature list key as in the data */
    size_t key_len;
    const char *c_name;        /* struct member */
    fc_type type;
    fc_kind kind;              /* FC_KIND_FIXED, FC_KIND_VARLEN or FC_KIND_RAGGED */
    unsigned rank;             /* FIXED: rank of the frame shape */
    size_t dims[FC_MAX_RANK];  /* FIXED: the frame shape */
    size_t elems;              /* FIXED: values per frame; VARLEN: 1 */
    size_t max;                /* VARLEN: values per frame; FIXED: elems */
    size_t max_frames;         /* frames bound */
    int allow_missing;         /* FIXED: a missing list is empty, not an error */
    int uniform;               /* VARLEN: every frame holds the same count */
    size_t value_offset;       /* offsetof the values */
    size_t frames_offset;      /* offsetof the size_t frame count */
    size_t count_offset;       /* VARLEN, RAGGED: offsetof the size_t[max_frames] counts */
    const fc_field_extra *extra; /* RAGGED: its value list (sparse_fields[0]) and
                                  partitions, whose fields are list indices;
                                  a list read only for one: fc_field_for_ragged;
                                  else fc_field_plain */
} fc_list_desc;

typedef struct fc_seq_desc {
    const char *name;          /* message name in the spec */
    const char *c_type;        /* generated struct type */
    size_t size;               /* sizeof the struct */
    size_t present_offset;     /* presence bits: context field i is bit i, list j
                                  is bit ncontext + j */
    size_t ncontext;
    const fc_field_desc *context; /* kinds FIXED, VARLEN and RAGGED */
    const uint16_t *context_order; /* context indices by key, bytewise */
    size_t nlists;
    const fc_list_desc *lists;
    const uint16_t *list_order;    /* list indices by key, bytewise */
    int aligned;               /* every present list has the same frame count */
    fc_ex_lookup_fn context_lookup; /* key -> context index, -1 (called with the
                                       descriptor as its context) */
    fc_ex_lookup_fn list_lookup;    /* key -> list index, -1 (likewise) */
    int (*parse)(void *out, const void *data, size_t len, fc_error *err);
    void (*init)(void *out);
    /* the generated batch assembly: record i's context features and lists
     * from the parsed struct msg into the columns, as fc_batch_parse_seq's
     * general path does; NULL: the general path (fc_batch.h) */
    int (*batch_append)(struct fc_column *cols, const void *msg, size_t i, fc_error *err);
} fc_seq_desc;

/* Parses one serialized tf.train.SequenceExample into the struct at out
 * (described by sd).  refs is scratch for ncontext + nlists entries.
 * Returns FC_OK or FC_ERR_PARSE with err (may be NULL) saying why; on error
 * *out holds unspecified values.  Values past a count are left as they
 * were; missing context features get their defaults. */
int fc_seq_parse(const fc_seq_desc *sd, void *out, const void *data, size_t len,
                 fc_feature_ref *refs, fc_error *err);

/* What follows a successful decode, on either path: the bucket ids of
 * hashed context features, then the RaggedFeatures of the context and of
 * the feature lists, built from the fields and lists they read (a failure
 * there is FC_ERR_PARSE with err saying why).  fc_seq_parse calls it;
 * generated fast paths too. */
int fc_seq_finish(const fc_seq_desc *sd, void *out, fc_error *err);

/* Converts, frame by frame, the values of every list with `as` (its
 * extra->as) in the struct at msg into its typed member, as
 * fc_ex_as_fields does a feature's; an error names the list and the frame
 * ("Feature list: K, Index: 3.  Value 300 at index 1 is out of the range
 * of uint8 (0 to 255)").  fc_seq_finish calls it. */
int fc_seq_as_lists(const fc_list_desc *lists, size_t n, void *msg, fc_error *err);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_SEQUENCE_H */
