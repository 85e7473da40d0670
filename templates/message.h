
/* ------------------------------------------------------------------------
 * @@KIND@@ @@NAME@@
 * ------------------------------------------------------------------------ */

/* Field numbers, in the spec's order (a sequence_example's context features
 * first, then its feature lists); field f is also bit f of `present`. */
enum @@TYPE@@_field {
@@ENUM@@
};
#define @@UPPER@@_FIELD_COUNT @@COUNT@@
@@PART_COUNTS@@
#define @@UPPER@@_PRESENT_WORDS @@WORDS@@

/* Shapes and bounds (a feature list holds at most _FRAMES_MAX frames: a
 * fixed-shape list _SIZE values per frame, a VarLen list at most _MAX). */
@@CONSTANTS@@

typedef struct @@TYPE@@ {
    /* bit f of present[f / 32]: field f was in the record (a default does
     * not count); test it with @@TYPE@@_has(). */
    uint32_t present[@@UPPER@@_PRESENT_WORDS];
@@MEMBERS@@
} @@TYPE@@;

/* Zeroes *m and fills every default. */
void @@TYPE@@_init(@@TYPE@@ *m);

/* Parses one serialized tf.train.@@PROTO@@ with this spec, as
 * tf.io.@@TF_PARSE@@ would, and checks the spec's bounds and
 * policies.  Returns FC_OK, or FC_ERR_PARSE with err (may be NULL) saying
 * why.  bytes values point into data.  On error *out holds unspecified
 * values.  Values past a count (of values, rows or frames) are left as
 * they were. */
int @@TYPE@@_parse(@@TYPE@@ *out, const void *data, size_t len, fc_error *err);

static inline int @@TYPE@@_has(const @@TYPE@@ *m, enum @@TYPE@@_field f)
{
    return fc_bit_get(m->present, (unsigned)f);
}

/* The message described in data: for generic code (JSON, tests). */
extern const @@DESC_TYPE@@ @@TYPE@@_desc;

/* Batches, in the layout of tf.io.@@TF_BATCH@@ (see
 * <featc/fc_batch.h>): one fc_column per field, indexed by enum
 * @@TYPE@@_field.  scratch holds each record in turn.  Returns FC_OK,
 * FC_ERR_PARSE for the first record that fails (err->record is its index in
 * the batch), or FC_ERR_ARG / FC_ERR_NO_SPACE for a buffer too small, found
 * before it is overrun. */
int @@TYPE@@_parse_batch(fc_column columns[@@UPPER@@_FIELD_COUNT], @@TYPE@@ *scratch,
    const fc_bytes *records, size_t n, fc_error *err);

/* Points every column into mem, sized for up to b records at the spec's
 * bounds with the VarLen outputs `forms` asks for (FC_BATCH_SPARSE,
 * FC_BATCH_RAGGED); returns the bytes needed (binds only if size is
 * enough).  @@UPPER@@_BATCH_BYTES(b) is that size for both forms, as a
 * constant expression: static storage can be declared with it. */
size_t @@TYPE@@_batch_bind(fc_column columns[@@UPPER@@_FIELD_COUNT], size_t b, unsigned forms,
    void *mem, size_t size);
#define @@UPPER@@_BATCH_BYTES(b) \
    (FC_BATCH_ALIGN - 1u@@BATCH_BYTES@@)

/* Writing: protobuf's deterministic serialization of the tf.train.@@PROTO@@
 * *m describes (see <featc/fc_serialize.h> for which features are written;
 * flags: FC_OMIT_DEFAULTS or FC_WRITE_DEFAULTS).  _encoded_size gives the
 * exact size, or 0 if *m breaks a bound (_serialize says which).
 * _serialize fills buf: FC_OK and *len, FC_ERR_NO_SPACE with *len the size
 * needed, or FC_ERR_ARG.  _write serializes into buf and appends the bytes
 * to w as one TFRecord (inline: a program that never writes links no
 * writer).  Nothing allocates. */
size_t @@TYPE@@_encoded_size(const @@TYPE@@ *m, unsigned flags);
int @@TYPE@@_serialize(const @@TYPE@@ *m, unsigned flags, void *buf, size_t cap, size_t *len,
    fc_error *err);
static inline int @@TYPE@@_write(fc_writer *w, const @@TYPE@@ *m, unsigned flags, void *buf,
    size_t cap, fc_error *err)
{
    return @@RT@@_write(w, &@@TYPE@@_desc, m, flags, buf, cap, err);
}

/* Marks field f present: written even when empty or at its default. */
static inline void @@TYPE@@_set_present(@@TYPE@@ *m, enum @@TYPE@@_field f)
{
    fc_bit_set(m->present, (unsigned)f);
}
