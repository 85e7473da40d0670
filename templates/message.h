
/* ------------------------------------------------------------------------
 * example @@NAME@@
 * ------------------------------------------------------------------------ */

/* Field numbers: the order of the spec, and the bit in `present`. */
enum @@TYPE@@_field {
@@ENUM@@
};
#define @@UPPER@@_FIELD_COUNT @@COUNT@@
#define @@UPPER@@_PRESENT_WORDS @@WORDS@@

/* Shapes and bounds. */
@@CONSTANTS@@

typedef struct @@TYPE@@ {
    /* bit f of present[f / 32]: feature f was in the record (a default does
     * not count); test it with @@TYPE@@_has(). */
    uint32_t present[@@UPPER@@_PRESENT_WORDS];
@@MEMBERS@@
} @@TYPE@@;

/* Zeroes *m and fills every default. */
void @@TYPE@@_init(@@TYPE@@ *m);

/* Parses one serialized tf.train.Example as TensorFlow's parse_single_example
 * would with this spec.  Returns FC_OK, or FC_ERR_PARSE with err (may be
 * NULL) saying why.  bytes values point into data.  On error *out holds
 * unspecified values.  Values past a VarLen count or a row count are left
 * as they were. */
int @@TYPE@@_parse(@@TYPE@@ *out, const void *data, size_t len, fc_error *err);

static inline int @@TYPE@@_has(const @@TYPE@@ *m, enum @@TYPE@@_field f)
{
    return fc_bit_get(m->present, (unsigned)f);
}

/* The message described in data: for generic code (JSON, tests). */
extern const fc_message_desc @@TYPE@@_desc;
