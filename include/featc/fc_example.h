/* featc runtime: the tf.train.Example wire format, as TensorFlow reads it.
 *
 * Generated parsers are thin: a key lookup (a switch the compiler writes), a
 * call to fc_ex_scan, which walks the record once and remembers where each
 * wanted feature's value is, then one typed decode call per feature.  The
 * rules below are those of TensorFlow's fast single-Example parser
 * (tensorflow/core/util/example_proto_fast_parsing.cc, FastParseSingleExample),
 * with the choices documented in the README where TF accepts malformed bytes
 * by accident (featc rejects them).
 *
 * Nothing here allocates, touches stdio or keeps state between calls.  Bytes
 * values are views into the caller's record buffer.
 */
#ifndef FEATC_FC_EXAMPLE_H
#define FEATC_FC_EXAMPLE_H

#include <stddef.h>
#include <stdint.h>

#include "fc_base.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A bytes value: a view into the record buffer, valid while it is. */
typedef struct fc_bytes {
    const uint8_t *data;
    size_t size;
} fc_bytes;

/* Value types, numbered as the Feature oneof (bytes_list = 1, ...). */
typedef enum fc_type {
    FC_TYPE_NONE = 0, /* a Feature{} with no list */
    FC_TYPE_BYTES = 1,
    FC_TYPE_FLOAT = 2,
    FC_TYPE_INT64 = 3
} fc_type;

/* Feature kinds, as tf.io names them. */
typedef enum fc_kind {
    FC_KIND_FIXED = 0,  /* FixedLenFeature(shape) */
    FC_KIND_VARLEN = 1, /* VarLenFeature, with a declared bound on values */
    FC_KIND_ROWS = 2,   /* FixedLenSequenceFeature(allow_missing=True) in an Example,
                           with a declared bound on rows */
    FC_KIND_SPARSE = 3, /* SparseFeature: built from index and value fields */
    FC_KIND_RAGGED = 4  /* RaggedFeature: values and partitions from their fields */
} fc_kind;

/* How a RaggedFeature partition is given (tf.io.RaggedFeature.RowSplits ...). */
typedef enum fc_part_kind {
    FC_PART_ROW_SPLITS = 1,
    FC_PART_ROW_LENGTHS = 2,
    FC_PART_ROW_STARTS = 3,
    FC_PART_ROW_LIMITS = 4,
    FC_PART_VALUE_ROWIDS = 5,
    FC_PART_UNIFORM_ROW_LENGTH = 6
} fc_part_kind;

/* One partition of a RaggedFeature, outermost first. */
typedef struct fc_part_desc {
    fc_part_kind kind;
    uint16_t field;            /* the VarLen int64 field holding it (keyed kinds) */
    size_t length;             /* FC_PART_UNIFORM_ROW_LENGTH: the row length */
    size_t max_rows;           /* rows this partition may have */
    size_t rows_offset;        /* offsetof its size_t row count */
    size_t splits_offset;      /* offsetof its row splits [max_rows + 1] */
} fc_part_desc;

#define FC_MAX_RANK 8

/* Where a wanted feature's value sits in the record: the last occurrence of
 * its key whose Feature is not empty (TensorFlow's rule). */
typedef struct fc_feature_ref {
    const uint8_t *data; /* the Feature message bytes */
    size_t size;
    size_t offset;       /* offset of data in the record */
    uint32_t entry;      /* 1-based map entry number in the record; 0: absent */
} fc_feature_ref;

/* What fc_ex_scan learned beyond the refs. */
typedef struct fc_ex_scan_info {
    uint32_t entries;        /* map entries seen */
    uint32_t bad_kind_entry; /* last entry of a wanted key whose Feature starts
                                with an unknown byte; 0 if none */
    int bad_kind_field;      /* its field index */
    uint8_t bad_kind_byte;
    size_t bad_kind_offset;
} fc_ex_scan_info;

/* Key -> field index, or -1 for keys the spec does not name.  ctx is passed
 * through from fc_ex_scan (generated lookups ignore it). */
typedef int (*fc_ex_lookup_fn)(const void *ctx, const uint8_t *key, size_t len);

/* Walks the record: Features blocks (several are merged), map entries (key
 * and value in either order), unknown top-level fields skipped.  refs must
 * have one slot per field; they are cleared first.  On a structural problem
 * returns FC_ERR_PARSE with "Could not parse example input" and the offset. */
int fc_ex_scan(const void *data, size_t len, fc_ex_lookup_fn lookup, const void *ctx,
               fc_feature_ref *refs, size_t nrefs, fc_ex_scan_info *info, fc_error *err);
struct fc_field_desc;
/* The same for a record of a batch (parse_example): TensorFlow's batched
 * path takes the last entry of a VarLen key even when it is a Feature{},
 * which then gives the record no values; fields (the message's, indexed as
 * refs) say which keys are VarLen.  fields NULL: fc_ex_scan. */
int fc_ex_scan_batched(const void *data, size_t len, fc_ex_lookup_fn lookup, const void *ctx,
                       const struct fc_field_desc *fields, fc_feature_ref *refs, size_t nrefs,
                       fc_ex_scan_info *info, fc_error *err);

/* Why a decode call failed (filled only when a detail pointer is given). */
typedef enum fc_ex_problem {
    FC_EXP_NONE = 0,
    FC_EXP_TYPE,      /* list of another type */
    FC_EXP_MALFORMED, /* list body does not parse */
    FC_EXP_COUNT,     /* FixedLen: count != product(shape) */
    FC_EXP_STRIDE,    /* rows: count not a multiple of the row size */
    FC_EXP_BOUND      /* more values (VarLen) or rows than the spec allows */
} fc_ex_problem;

typedef struct fc_ex_detail {
    fc_ex_problem problem;
    fc_type actual;      /* the list type found */
    size_t count;        /* values found (all of them, even past a bound) */
    size_t offset;       /* record offset of the problem */
    const char *what;    /* for FC_EXP_MALFORMED: what is wrong */
} fc_ex_detail;

/* Typed decoders.  Each checks the list type, decodes every value, stores at
 * most its capacity and checks the count rule of its kind:
 *   fixed:  exactly n values (a Feature{} never reaches these: it is absent)
 *   varlen: at most max values; Feature{} gives 0
 *   rows:   a multiple of stride values, at most max_rows rows
 * They return FC_OK or FC_ERR_PARSE; d (may be NULL) receives the reason. */
int fc_ex_fixed_int64(const fc_feature_ref *r, int64_t *dst, size_t n, fc_ex_detail *d);
int fc_ex_fixed_float(const fc_feature_ref *r, float *dst, size_t n, fc_ex_detail *d);
int fc_ex_fixed_bytes(const fc_feature_ref *r, fc_bytes *dst, size_t n, fc_ex_detail *d);
int fc_ex_varlen_int64(const fc_feature_ref *r, int64_t *dst, size_t max, size_t *count,
                       fc_ex_detail *d);
int fc_ex_varlen_float(const fc_feature_ref *r, float *dst, size_t max, size_t *count,
                       fc_ex_detail *d);
int fc_ex_varlen_bytes(const fc_feature_ref *r, fc_bytes *dst, size_t max, size_t *count,
                       fc_ex_detail *d);
int fc_ex_rows_int64(const fc_feature_ref *r, int64_t *dst, size_t stride, size_t max_rows,
                     size_t *rows, fc_ex_detail *d);
int fc_ex_rows_float(const fc_feature_ref *r, float *dst, size_t stride, size_t max_rows,
                     size_t *rows, fc_ex_detail *d);
int fc_ex_rows_bytes(const fc_feature_ref *r, fc_bytes *dst, size_t stride, size_t max_rows,
                     size_t *rows, fc_ex_detail *d);

/* ------------------------------------------------------------ descriptors
 *
 * Every generated message also describes itself in data, so that generic
 * code (the JSON driver, the error reporter below, the differential tests)
 * can walk a struct without knowing its C type. */
/* What only some fields have: hash buckets (`hash_buckets N`), the parts of a
 * SparseFeature or a RaggedFeature, the mark of a field read only for one.
 * A field with none of them points to fc_field_plain; a field read only for
 * a SparseFeature or a RaggedFeature to fc_field_for_sparse or _for_ragged. */
typedef struct fc_field_extra {
    size_t hash_buckets;       /* `hash_buckets N`: N, else 0 */
    int hot;                   /* 0, FC_HOT_ONE or FC_HOT_MULTI */
    size_t bucket_offset;      /* offsetof the int64_t bucket ids (one per value) */
    size_t hot_offset;         /* offsetof the float hot vectors */
    /* SparseFeature (kind FC_KIND_SPARSE): rank = index keys, dims = the
     * dense size, max = entries; value_offset/count_offset its values and
     * count; the indices are int64_t [max][rank]. */
    size_t indices_offset;
    uint16_t sparse_fields[FC_MAX_RANK + 1]; /* index fields, then the value field */
    int already_sorted;        /* keep the record's order */
    int hidden;                /* a VarLen field read only for a SparseFeature (1) or a
                                  RaggedFeature (2) */
    /* RaggedFeature (kind FC_KIND_RAGGED): values (value_offset, count_offset,
     * max) from field sparse_fields[0], partitioned by parts[0..nparts),
     * outermost first; splits are int64_t when split64, else int32_t. */
    const fc_part_desc *parts;
    unsigned nparts;
    int split64;
    /* `as TYPE [dims]`: the tensor the feature gives, or NULL */
    const struct fc_field_as *as;
} fc_field_extra;

/* `as TYPE [dims]`: values converted after the parse (fc_ex_as_fields)
 * into the struct at offset: elems elements of fc_as_size(type) bytes per
 * value (1, or for bytes decoded as decode_raw the product of
 * dims[0..rank)).  Batches, Python and Arrow give these. */
typedef struct fc_field_as {
    int type;                  /* an fc_as */
    size_t offset;
    unsigned rank;
    size_t dims[FC_MAX_RANK];
    size_t elems;
} fc_field_as;

/* Tensor types a feature may ask for with `as` (spec-language.md): an
 * int64 narrowed to INT8..INT32 (a value out of range is an error), a
 * float to FLOAT16 (a finite value beyond its range is an error; the
 * struct holds its IEEE binary16 bits in a uint16_t), or a bytes value
 * decoded as tf.io.decode_raw(little_endian=True) does into any of them. */
typedef enum fc_as {
    FC_AS_NONE = 0,
    FC_AS_INT8 = 1,
    FC_AS_UINT8 = 2,
    FC_AS_INT16 = 3,
    FC_AS_UINT16 = 4,
    FC_AS_INT32 = 5,
    FC_AS_INT64 = 6,
    FC_AS_FLOAT16 = 7,
    FC_AS_FLOAT32 = 8,
    FC_AS_FLOAT64 = 9
} fc_as;
#define FC_AS_LAST FC_AS_FLOAT64

extern const fc_field_extra fc_field_plain;      /* all zero */
extern const fc_field_extra fc_field_for_sparse; /* hidden 1, else zero */
extern const fc_field_extra fc_field_for_ragged; /* hidden 2, else zero */

typedef struct fc_field_desc {
    const char *key;           /* feature key as in the data (may hold any byte) */
    size_t key_len;
    const char *c_name;        /* struct member */
    fc_type type;
    fc_kind kind;
    unsigned rank;             /* FIXED: rank of shape; ROWS: rank of the row shape */
    size_t dims[FC_MAX_RANK];  /* FIXED: shape; ROWS: row shape */
    size_t elems;              /* FIXED: product(shape); ROWS: row size (stride); VARLEN: 1 */
    size_t max;                /* VARLEN: max values; ROWS: max rows; FIXED: elems */
    size_t value_offset;       /* offsetof the values in the struct */
    size_t count_offset;       /* offsetof the size_t count (VARLEN values, ROWS rows) */
    const void *default_value; /* FIXED: elems values; ROWS: 1 padding value; or NULL */
    const fc_field_extra *extra; /* never NULL: &fc_field_plain when there is nothing */
} fc_field_desc;

/* Hot encodings of bucket ids, as tf.feature_column.indicator_column gives
 * them: one vector of hash_buckets floats per value (one_hot), or one per
 * feature counting the values in each bucket (multi_hot). */
#define FC_HOT_ONE 1
#define FC_HOT_MULTI 2

struct fc_column; /* fc_batch.h */

typedef struct fc_message_desc {
    const char *name;          /* message name in the spec */
    const char *c_type;        /* generated struct type */
    size_t size;               /* sizeof the struct */
    size_t present_offset;     /* offsetof the uint32_t presence bit words */
    size_t nfields;
    const fc_field_desc *fields;
    const uint16_t *missing_order; /* field indices by key, bytewise (TF's order) */
    int (*parse)(void *out, const void *data, size_t len, fc_error *err);
    void (*init)(void *out);
    /* parse as a record of a batch (fc_ex_scan_batched's rule); NULL: parse */
    int (*parse_batched)(void *out, const void *data, size_t len, fc_error *err);
    /* the generated batch assembly: record i's fields from the parsed
     * struct msg into the columns, as fc_batch_parse's general path does;
     * NULL: the general path (fc_batch.h) */
    int (*batch_append)(struct fc_column *cols, const void *msg, size_t i, fc_error *err);
    /* the direct batch path: records first..n-1 decoded by the fast path
     * straight into the columns, while it takes them; returns the first it
     * did not take, which fc_batch_parse gives to parse_batched and
     * batch_append.  NULL: none (a message with other kinds, or a build
     * without the fast path) */
    size_t (*batch_direct)(struct fc_column *cols, const fc_bytes *records, size_t first,
                           size_t n);
} fc_message_desc;

/* Bytes of one value of type t in a generated struct. */
static inline size_t fc_type_size(fc_type t)
{
    return t == FC_TYPE_BYTES ? sizeof(fc_bytes) : t == FC_TYPE_FLOAT ? sizeof(float)
                                                                     : sizeof(int64_t);
}

/* Presence bits: bit i of word i/32 is set when field i was in the record. */
static inline int fc_bit_get(const uint32_t *words, unsigned i)
{
    return (int)((words[i / 32u] >> (i % 32u)) & 1u);
}

static inline void fc_bit_set(uint32_t *words, unsigned i)
{
    words[i / 32u] |= (uint32_t)1u << (i % 32u);
}

/* Decodes field i of a message (its refs[i] found by the scan) into msg with
 * the typed decoder of its kind (fc_ex_fixed_int64 and the others); d (may
 * be NULL) receives why it fails.  A generated NAME_decode_field calls only
 * the decoders its spec uses, so a small build links no others. */
typedef int (*fc_ex_decode_fn)(const fc_message_desc *md, void *msg, const fc_feature_ref *refs,
                               size_t i, fc_ex_detail *d);

/* Builds the error of a record that failed the fast path: visits the failing
 * candidates as TensorFlow would (map entries from the last to the first),
 * so that the message is the one TensorFlow reports, plus key, offset and
 * expected/actual.  Uses `scratch` (a message struct of this type) as output
 * space, and decode to decode a field again.  Always returns FC_ERR_PARSE. */
int fc_ex_report(const fc_message_desc *md, void *scratch, const fc_feature_ref *refs,
                 const fc_ex_scan_info *info, fc_ex_decode_fn decode, fc_error *err);

/* parse_single_example's general path, driven by the descriptor alone:
 * what a generated NAME_parse does without its fast path (the same
 * values, the same errors).  For messages described at run time (featc
 * check --data): lookup(ctx, key, len) gives a key's field number or -1;
 * refs is scratch for md->nfields entries; out is md->size bytes.  Returns
 * FC_OK or FC_ERR_PARSE with err saying why. */
int fc_ex_parse_desc(const fc_message_desc *md, void *out, const void *data, size_t len,
                     fc_ex_lookup_fn lookup, const void *ctx, fc_feature_ref *refs, fc_error *err);

/* The "required but could not be found" error for field i. */
int fc_ex_missing(const fc_message_desc *md, size_t i, fc_error *err);

/* Fills the bucket ids (and hot vectors) of every field with hash_buckets
 * from the values the struct at msg holds: TensorFlow's
 * categorical_column_with_hash_bucket (FarmHash Fingerprint64 of the bytes,
 * or of an int64's decimal text, modulo the bucket count). */
void fc_ex_hash_fields(const fc_field_desc *fields, size_t n, void *msg);

/* Builds SparseFeature field i of the message at msg from its index and
 * value fields (decoded already), as parse_single_example does: indices
 * [n, rank] and values [n], sorted row-major (by index, then by value for
 * equal indices) unless already_sorted.  Every index field must hold as
 * many values as the value field.  Returns FC_OK or FC_ERR_PARSE. */
int fc_ex_sparse(const fc_message_desc *md, size_t i, void *msg, fc_error *err);

/* Builds RaggedFeature field i of the message at msg from its value and
 * partition fields (decoded already): values, then each partition's row
 * splits from the innermost out, checked as RaggedTensor's validate=True
 * does ("values and partitions are not aligned").  Returns FC_OK or
 * FC_ERR_PARSE. */
int fc_ex_ragged(const fc_message_desc *md, size_t i, void *msg, fc_error *err);

/* "string", "float", "int64": TensorFlow's DataTypeString spelling. */
const char *fc_type_tf_name(fc_type t);

/* Bytes per element of an `as` type (0 for FC_AS_NONE or an unknown one). */
static inline size_t fc_as_size(int as)
{
    return as == FC_AS_INT8 || as == FC_AS_UINT8                            ? 1u
           : as == FC_AS_INT16 || as == FC_AS_UINT16 || as == FC_AS_FLOAT16 ? 2u
           : as == FC_AS_INT32 || as == FC_AS_FLOAT32                        ? 4u
           : as == FC_AS_INT64 || as == FC_AS_FLOAT64                        ? 8u
                                                                             : 0u;
}
/* Its name as NumPy and the spec spell it: "uint8", "float16", ... (NULL
 * for none). */
static inline const char *fc_as_name(int as)
{
    switch (as) {
    case FC_AS_INT8: return "int8";
    case FC_AS_UINT8: return "uint8";
    case FC_AS_INT16: return "int16";
    case FC_AS_UINT16: return "uint16";
    case FC_AS_INT32: return "int32";
    case FC_AS_INT64: return "int64";
    case FC_AS_FLOAT16: return "float16";
    case FC_AS_FLOAT32: return "float32";
    case FC_AS_FLOAT64: return "float64";
    default: return NULL;
    }
}
/* As TensorFlow's DataTypeString says it: "half", "float" and "double"
 * for the floats. */
static inline const char *fc_as_tf_name(int as)
{
    return as == FC_AS_FLOAT16   ? "half"
           : as == FC_AS_FLOAT32 ? "float"
           : as == FC_AS_FLOAT64 ? "double"
                                 : fc_as_name(as);
}
/* The values an int64 narrowed to `as` may hold, [*lo, *hi]: the
 * runtime's range check and the compiler's check of defaults share it.
 * Returns 0 for a type that is no narrowing of int64. */
static inline int fc_as_range(int as, int64_t *lo, int64_t *hi)
{
    switch (as) {
    case FC_AS_INT8: *lo = -128; *hi = 127; return 1;
    case FC_AS_UINT8: *lo = 0; *hi = 255; return 1;
    case FC_AS_INT16: *lo = -32768; *hi = 32767; return 1;
    case FC_AS_UINT16: *lo = 0; *hi = 65535; return 1;
    case FC_AS_INT32: *lo = INT32_MIN; *hi = INT32_MAX; return 1;
    default: return 0;
    }
}
/* Converts the values of every field with `as` in the struct at msg into
 * its typed values (typed.c): Returns FC_OK, or FC_ERR_PARSE naming the
 * feature ("Key: K.  " or, context != 0, "Context feature: K.  ") and the
 * value: an int64 or float out of the type's range, or a bytes value that
 * decode_raw refuses ("Input to DecodeRaw has length 5 that is not a
 * multiple of 4, the size of int32") or that does not fill the shape
 * ("Input to reshape is a tensor with 700 values, but the requested shape
 * has 784"). */
int fc_ex_as_fields(const fc_field_desc *fields, size_t n, void *msg, int context,
                    fc_error *err);

/* The IEEE binary16 bits of x, rounded to nearest even (NaN as TensorFlow's
 * cast makes it, 0x7e00 with x's sign); *over set when a finite x rounds
 * past 65504 (typed.c; the generated direct batch path's float16). */
uint16_t fc_as_half(float x, int *over);

/* ---- packed int64 values, for the generated parsers' fast path
 * (fc_fast.h) */

/* A packed int64 run [rb, rb + rl): its varints into dst, at most cap of
 * them, *n the count; 0 when a varint is cut short by the run's end or
 * has more than 10 bytes (fc_fast_varint's rule), or when there are more
 * than cap.  Out of line, in the runtime (example.c), which picks its loop
 * by the CPU it runs on: on x86-64 with fast BMI2, pext squeezes each
 * varint's 7-bit groups in one instruction; elsewhere the shifts and masks
 * of fc_fast_word_bits do it, and big-endian hosts read byte by byte.  A
 * call per list, not per value. */
int fc_int64_run(const uint8_t *rb, size_t rl, int64_t *dst, size_t cap, size_t *n);

/* Frames of one int64 each from *pp, in the layout protobuf writes (a
 * varint of 1-8 bytes, "0x0a n+4 0x1a n+2 0x0a n" before it): at most max
 * of them into dst, *pp moved past them; the count is returned, and the
 * caller's loop takes a frame of any other layout.  In the runtime, with
 * fc_int64_run's choice of loop. */
size_t fc_int64_frames(const uint8_t **pp, const uint8_t *end, int64_t *dst, size_t max);

/* The loops fc_int64_run and fc_int64_frames choose from ("bytes", "words",
 * "pext"), for the tests: the i-th (from 0) this CPU can run, or NULL past
 * the last; fc_varint_impl() names the one in use. */
typedef struct fc_varint_loops {
    const char *name;
    int (*run)(const uint8_t *rb, size_t rl, int64_t *dst, size_t cap, size_t *n);
    size_t (*frames)(const uint8_t **pp, const uint8_t *end, int64_t *dst, size_t max);
} fc_varint_loops;
const fc_varint_loops *fc_varint_loops_variant(int i);
const char *fc_varint_impl(void);

#ifdef __cplusplus
}
#endif

#endif /* FEATC_FC_EXAMPLE_H */
