
/* ------------------------------------------------------------------------
 * sequence_example @@NAME@@
 * ------------------------------------------------------------------------ */

/* Field numbers: context features, then feature lists (in spec order); the
 * bit in `present`. */
enum @@TYPE@@_field {
@@ENUM@@
};
#define @@UPPER@@_FIELD_COUNT @@COUNT@@
#define @@UPPER@@_CONTEXT_COUNT @@CONTEXT_COUNT@@
#define @@UPPER@@_LIST_COUNT @@LIST_COUNT@@
#define @@UPPER@@_PRESENT_WORDS @@WORDS@@

/* Shapes and bounds.  A feature list holds at most _FRAMES_MAX frames; a
 * fixed-shape list _SIZE values per frame, a VarLen list at most _MAX. */
@@CONSTANTS@@

typedef struct @@TYPE@@ {
    /* bit f of present[f / 32]: context feature or feature list f was in the
     * record (a default does not count); test it with @@TYPE@@_has(). */
    uint32_t present[@@UPPER@@_PRESENT_WORDS];
@@MEMBERS@@
} @@TYPE@@;

/* Zeroes *m and fills every context default. */
void @@TYPE@@_init(@@TYPE@@ *m);

/* Parses one serialized tf.train.SequenceExample as TensorFlow's
 * parse_single_sequence_example would with this spec, and checks the
 * spec's bounds and policies.  Returns FC_OK, or FC_ERR_PARSE with err (may
 * be NULL) saying why.  bytes values point into data.  On error *out holds
 * unspecified values.  Values past a count or a frame count are left as
 * they were. */
int @@TYPE@@_parse(@@TYPE@@ *out, const void *data, size_t len, fc_error *err);

static inline int @@TYPE@@_has(const @@TYPE@@ *m, enum @@TYPE@@_field f)
{
    return fc_bit_get(m->present, (unsigned)f);
}

/* The message described in data: for generic code (JSON, tests). */
extern const fc_seq_desc @@TYPE@@_desc;
