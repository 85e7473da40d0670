/* Helpers shared by the runtime's sources (not installed): the wire format
 * for example.c and sequence.c, and access to generated structs for every
 * file that walks one through its descriptor.  See example.c for the
 * security model: every length is checked against the bytes that remain
 * before it is used. */
#ifndef FEATC_WIRE_H
#define FEATC_WIRE_H

#include <string.h>

#include "featc/fc_example.h"

/* Kept out of line: an error path's frame off the stack of the path that
 * calls it (the deepest stack of a parse is asserted by make footprint). */
#if defined(__GNUC__) || defined(__clang__)
#define FC_NOINLINE __attribute__((noinline))
#else
#define FC_NOINLINE
#endif

/* The size_t member of a generated struct at p (a count or frame count),
 * read without assuming p's alignment. */
static inline size_t fc_load_size(const void *p)
{
    size_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Presence bit `to` set as bit `from` is: a built feature (SparseFeature,
 * RaggedFeature) is present when the field holding its values was. */
static inline void fc_bit_copy(uint32_t *words, unsigned to, unsigned from)
{
    if (fc_bit_get(words, from))
        words[to / 32u] |= (uint32_t)1u << (to % 32u);
    else
        words[to / 32u] &= ~((uint32_t)1u << (to % 32u));
}

/* Writing the wire format (serialize.c, and hosted/arrow_rows_direct.c
 * for rows straight from Arrow columns): a varint's size and bytes, and a
 * length-delimited field's head (tag, length). */
static inline uint64_t fc_wire_varint_size(uint64_t v)
{
    uint64_t n = 1;
    while (v >= 0x80u) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline uint8_t *fc_wire_put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80u) {
        *p++ = (uint8_t)(v | 0x80u);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint8_t *fc_wire_put_head(uint8_t *p, unsigned tag, uint64_t n)
{
    *p++ = (uint8_t)tag;
    return fc_wire_put_varint(p, n);
}

#define FC_TAG_LEN1 0x0Au   /* field 1, length-delimited */
#define FC_TAG_LEN2 0x12u   /* field 2, length-delimited */
#define FC_TAG_LEN3 0x1Au   /* field 3, length-delimited */

/* A length or tag: a varint of at most 10 bytes whose value fits 32 bits;
 * NULL if it runs past end, is longer or larger. */
const uint8_t *fc_wire_len(const uint8_t *p, const uint8_t *end, uint32_t *v);

/* TensorFlow's texts that its single and batched Example paths word
 * differently (tf-semantics.md 3.1, 3.2).  The single-record parser says
 * the single path's text, then the batched one's words as its detail; the
 * batch (batch.c, batch_error) turns the first into the second. */
#define FC_TF_BAD_EXAMPLE "Could not parse example input, value: "
#define FC_TF_VALUE_PREFIX 48u /* record bytes quoted in FC_TF_BAD_EXAMPLE */
#define FC_TF_CANT_PARSE "Can't parse serialized Example"
#define FC_TF_SLICE_NOT_PARSED "_list slice was not parsed. "
#define FC_TF_STRIDE_KEY "Error while parsing feature with key "
#define FC_TF_STRIDE_MID ": number of elements should be divisible by "
#define FC_TF_STRIDE_END " instead. "
#define FC_TF_SPARSE_ROWS "indices and values rows (indexing dimension) must match. (indices = "
#define FC_SPARSE_DETAIL "(SparseFeature "
/* A length-delimited value at p (its length varint first): *body and *n, and
 * the end of the value; NULL if it overruns end. */
const uint8_t *fc_wire_delimited(const uint8_t *p, const uint8_t *end, const uint8_t **body,
                                 uint32_t *n);
/* Skips the body of a field whose tag was read; NULL for groups, invalid wire
 * types and overruns. */
const uint8_t *fc_wire_skip_body(const uint8_t *p, const uint8_t *end, uint32_t tag);

/* The list of the Feature at r, of type `want`, into dst (at most cap values
 * stored, all counted in *count).  FC_OK, or FC_ERR_PARSE with d (may be
 * NULL) saying FC_EXP_TYPE or FC_EXP_MALFORMED. */
int fc_wire_int64s(const fc_feature_ref *r, int64_t *dst, size_t cap, size_t *count,
                   fc_ex_detail *d);
int fc_wire_floats(const fc_feature_ref *r, float *dst, size_t cap, size_t *count,
                   fc_ex_detail *d);
int fc_wire_bytes(const fc_feature_ref *r, fc_bytes *dst, size_t cap, size_t *count,
                  fc_ex_detail *d);

/* Pieces of error messages (error.c), shared by every parser's texts:
 * a shape "[2,3]" ("[?,3]" with unknown_first), " at byte N", and
 * " (at byte N)". */
#ifndef FC_NO_ERRMSG
void fc_msg_shape(fc_msg *m, unsigned rank, const size_t *dims, int unknown_first);
void fc_msg_at(fc_msg *m, uint64_t offset);
void fc_msg_paren_at(fc_msg *m, uint64_t offset);
#else
static inline void fc_msg_shape(fc_msg *m, unsigned rank, const size_t *dims, int unknown_first)
{
    (void)m; (void)rank; (void)dims; (void)unknown_first;
}
static inline void fc_msg_at(fc_msg *m, uint64_t offset) { (void)m; (void)offset; }
static inline void fc_msg_paren_at(fc_msg *m, uint64_t offset) { (void)m; (void)offset; }
#endif

/* "bytes", "float", "int64": the list names of the wire format. */
const char *fc_wire_list_name(fc_type t);

/* RaggedFeatures (example.c), built the same way in an Example, a
 * SequenceExample's context and each frame of its feature lists. */
#define FC_RG_EXAMPLE 0 /* texts name "Key: K.  " */
#define FC_RG_CONTEXT 1 /* "Context feature: K.  " */
#define FC_RG_LIST 2    /* "Name: <unknown>, Feature list: K, Index: T.  " */

typedef struct fc_rg_where {
    int role;           /* FC_RG_* */
    const char *key;    /* the RaggedFeature's key */
    size_t key_len;
    size_t frame;       /* FC_RG_LIST: the frame */
} fc_rg_where;

/* What one RaggedFeature reads (an Example's or context's feature, or one
 * frame of a list): in[0] its values, in[q + 1] partition q's int64 values
 * (data NULL for a uniform row length), with the key each comes from. */
typedef struct fc_rg_in {
    const unsigned char *data;
    size_t count;
    const char *key;
    size_t key_len;
} fc_rg_in;

/* The start of the "not aligned" text, for the caller to go on with. */
fc_msg fc_rg_not_aligned(const fc_rg_where *w, fc_error *err);
/* Builds one RaggedFeature of extra x (values of type, bound max) from in
 * into the struct at m: frame w->frame (0 for a feature) of its values at
 * value_offset (max a frame), its count at count_offset, each partition's
 * rows and splits likewise per frame.  Checked as RaggedTensor's
 * validate=True checks, and against the spec's bounds.  FC_OK or
 * FC_ERR_PARSE. */
int fc_rg_build(const fc_rg_where *w, const fc_field_extra *x, fc_type type, size_t max,
                unsigned char *m, size_t value_offset, size_t count_offset, const fc_rg_in *in,
                fc_error *err);
/* The bucket ids (fc_hash.h) of n values of type (int64 or bytes) into
 * ids: categorical_column_with_hash_bucket's, value by value. */
void fc_hash_values(fc_type type, const unsigned char *values, size_t n, size_t nb, int64_t *ids);
/* RaggedFeature field i of fields (an Example's or a context's) in the
 * struct at msg, from its value and partition fields; role FC_RG_EXAMPLE
 * or FC_RG_CONTEXT. */
int fc_rg_fields(const fc_field_desc *fields, size_t present_offset, size_t i, void *msg,
                 int role, fc_error *err);

/* "Key: KEY.  " before a message about feature f (error.c). */
void fc_msg_key(fc_msg *m, const fc_field_desc *f);

#endif /* FEATC_WIRE_H */
