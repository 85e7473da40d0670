/* Columns: key, key_len, c_name, type, kind, rank, dims, elems, max,
 * value_offset, count_offset, default_value, extra (fc_field_desc). */
static const fc_field_desc @@TYPE@@_fields[@@UPPER@@_FIELD_COUNT] = {
@@FIELD_DESCS@@
};

/* Field numbers by key, bytewise: the order in which TensorFlow reports a
 * missing feature. */
static const uint16_t @@TYPE@@_missing_order[@@UPPER@@_FIELD_COUNT] = {
@@MISSING_ORDER@@
};

/* Feature key -> field number; -1 for a key the spec does not name.
 * Inlined into the fast path, where the switch on its result then goes
 * straight to the feature's case. */
FC_FAST_INLINE int @@TYPE@@_lookup(const void *ctx, const uint8_t *key, size_t len)
{
    (void)ctx;
@@LOOKUP@@
    return -1;
}

/* Decodes field i, which the scan found, with its kind's decoder (an
 * fc_ex_decode_fn): d (may be NULL) receives why it fails.  Inlined into
 * _decode but in a build for size, where fc_ex_report shares it. */
FC_FAST_INLINE int @@TYPE@@_decode_field(const fc_message_desc *md, void *msg,
    const fc_feature_ref *refs, size_t i, fc_ex_detail *d)
{
    @@TYPE@@ *m = (@@TYPE@@ *)msg;
    (void)md;
    switch (i) {
@@DECODE_CASES@@
    default: /* SparseFeature, RaggedFeature: built from their fields */
        return FC_OK;
    }
}

/* Decodes what the scan found (_defaults then fills the defaults of what it
 * did not).  Stops at the first problem without a message: fc_ex_report
 * then finds the problem TensorFlow would report and words it. */
static int @@TYPE@@_decode(@@TYPE@@ *m, const fc_feature_ref *ref)
{
@@DECODE@@
    return FC_OK;
}

/* The fast path (include/featc/fc_fast.h): one pass over a record laid out
 * as protobuf writes it, each wanted value decoded where its key is found,
 * unwanted ones skipped unread.  Returns 0, having decided nothing, for any
 * other layout: the general path then reads the record from the start. */
FC_FAST_ENTRY int @@TYPE@@_fast(@@TYPE@@ *m, const uint8_t *p, size_t len)
{
    uint32_t seen[@@UPPER@@_PRESENT_WORDS] = {0};
    const uint8_t *end = p + len, *body;
    size_t flen;
    /* one Features block, the whole record */
    if (len > (size_t)INT32_MAX || !fc_fast_field(&p, end, 0x0a, &body, &flen) || p != end)
        return 0;
    p = body;
    while (p < end) {
        fc_fast_entry e;
        if (!fc_fast_next(&p, end, &e))
            return 0;
        switch (@@TYPE@@_lookup(NULL, e.key, e.key_len)) {
@@FAST_CASES@@
        default:
            break; /* a feature the spec does not name: not read */
        }
    }
@@FAST_ABSENT@@
@@FAST_DEFAULTS@@
    memcpy(m->present, seen, sizeof seen);
    return 1;
}

/* batched: NULL for parse_single_example's rules, the fields for
 * parse_example's (a Feature{} ends a VarLen key's values). */
static int @@TYPE@@_parse_as(@@TYPE@@ *out, const void *data, size_t len,
    const fc_field_desc *batched, fc_error *err)
{
    /* The fast path gives the general path every record with a Feature{}
     * for a wanted key, so it serves both rules. */
    if (data == NULL || !FC_FAST_PATH || !@@TYPE@@_fast(out, (const uint8_t *)data, len)) {
        /* The general path: every layout TensorFlow accepts, and the
         * error TensorFlow reports for the others. */
        fc_feature_ref ref[@@UPPER@@_FIELD_COUNT];
        fc_ex_scan_info info;
        int rc = fc_ex_scan_batched(data, len, @@TYPE@@_lookup, NULL, batched, ref,
                                    @@UPPER@@_FIELD_COUNT, &info, err);
        if (rc != FC_OK)
            return rc;
        memset(out->present, 0, sizeof out->present);
        if (@@TYPE@@_decode(out, ref) != FC_OK || info.bad_kind_entry != 0)
            return fc_ex_report(&@@TYPE@@_desc, out, ref, &info, @@TYPE@@_decode_field, err);
        @@TYPE@@_defaults(out, out->present);
    }
@@MISSING@@
@@FINISH@@
    return FC_OK;
}

int @@TYPE@@_parse(@@TYPE@@ *out, const void *data, size_t len, fc_error *err)
{
    return @@TYPE@@_parse_as(out, data, len, NULL, err);
}

static int @@TYPE@@_parse_batched_any(void *out, const void *data, size_t len, fc_error *err)
{
    return @@TYPE@@_parse_as((@@TYPE@@ *)out, data, len, @@TYPE@@_fields, err);
}

#if FC_FAST_PATH
/* Batch assembly: record i's fields from its parsed struct into the
 * columns of fc_batch_parse (typed here; the runtime's general path for
 * what this leaves to it).  Small builds (FC_NO_FAST_PATH) use the
 * general path only. */
static int @@TYPE@@_batch_append(fc_column *cols, const void *msg, size_t i, fc_error *err)
{
    const @@TYPE@@ *m = (const @@TYPE@@ *)msg;
@@BATCH_APPEND@@
    return FC_OK;
}
#define @@UPPER@@_BATCH_APPEND @@TYPE@@_batch_append

@@BATCH_DIRECT@@
#else
#define @@UPPER@@_BATCH_APPEND NULL
#define @@UPPER@@_BATCH_DIRECT NULL
#endif

/* The descriptor: the message in data, for the runtime's generic paths. */
const fc_message_desc @@TYPE@@_desc = {
    "@@NAME@@",
    "@@TYPE@@",
    sizeof(@@TYPE@@),
    offsetof(@@TYPE@@, present),
    @@UPPER@@_FIELD_COUNT,
    @@TYPE@@_fields,
    @@TYPE@@_missing_order,
    @@TYPE@@_parse_any,
    @@TYPE@@_init_any,
    @@TYPE@@_parse_batched_any,
    @@UPPER@@_BATCH_APPEND,
    @@UPPER@@_BATCH_DIRECT
};

