@@CONTEXT_DESCS@@
@@LIST_DESCS@@

/* Context feature key -> context index; -1 for a key the spec does not name
 * (inlined into the fast path, as the Example lookup). */
FC_FAST_INLINE int @@TYPE@@_context_lookup(const void *ctx, const uint8_t *key, size_t len)
{
    (void)ctx;
@@CONTEXT_LOOKUP@@
    return -1;
}

/* Feature list key -> list index (its field number minus the context
 * count); -1 for a key the spec does not name (inlined into the fast path,
 * as the Example lookup). */
FC_FAST_INLINE int @@TYPE@@_list_lookup(const void *ctx, const uint8_t *key, size_t len)
{
    (void)ctx;
@@LIST_LOOKUP@@
    return -1;
}

/* The fast path (include/featc/fc_fast.h): one pass over a record laid out
 * as protobuf writes it, each wanted value decoded where its key is found.
 * Returns 0, having decided nothing, for any other layout: fc_seq_parse
 * then reads the record from the start. */
FC_FAST_ENTRY int @@TYPE@@_fast(@@TYPE@@ *m, const uint8_t *p, size_t len)
{
    uint32_t seen[@@UPPER@@_PRESENT_WORDS] = {0};
    const uint8_t *end = p + len, *q, *qend;
    size_t t = 0, frames = 0;
    fc_fast_entry e;
    if (len > (size_t)INT32_MAX || !fc_fast_block(&p, end, 0x0a, &q, &qend))
        return 0;
    while (q < qend) { /* context */
        if (!fc_fast_next(&q, qend, &e))
            return 0;
        switch (@@TYPE@@_context_lookup(NULL, e.key, e.key_len)) {
@@FAST_CONTEXT_CASES@@
        default:
            break; /* a feature the spec does not name: not read */
        }
    }
    if (!fc_fast_block(&p, end, 0x12, &q, &qend) || p != end)
        return 0;
    while (q < qend) { /* feature lists */
        if (!fc_fast_next(&q, qend, &e))
            return 0;
        switch (@@TYPE@@_list_lookup(NULL, e.key, e.key_len)) {
@@FAST_LIST_CASES@@
        default:
            break;
        }
    }
@@FAST_CONTEXT_ABSENT@@
@@FAST_DEFAULTS@@
@@FAST_LIST_ABSENT@@
    (void)t;
    (void)frames;
    memcpy(m->present, seen, sizeof seen);
    return 1;
}

int @@TYPE@@_parse(@@TYPE@@ *out, const void *data, size_t len, fc_error *err)
{
    fc_feature_ref ref[@@UPPER@@_FIELD_COUNT];
    if (data != NULL && FC_FAST_PATH && @@TYPE@@_fast(out, (const uint8_t *)data, len))
        return fc_seq_finish(&@@TYPE@@_desc, out, err); /* hashes, RaggedFeatures */
    return fc_seq_parse(&@@TYPE@@_desc, out, data, len, ref, err);
}

#if FC_FAST_PATH
/* Batch assembly: record i's context features and lists from its parsed
 * struct into the columns of fc_batch_parse_seq (typed here; the runtime's
 * general path for what this leaves to it).  Small builds
 * (FC_NO_FAST_PATH) use the general path only. */
static int @@TYPE@@_batch_append(fc_column *cols, const void *msg, size_t i, fc_error *err)
{
    const @@TYPE@@ *m = (const @@TYPE@@ *)msg;
@@BATCH_APPEND@@
    return FC_OK;
}
#define @@UPPER@@_BATCH_APPEND @@TYPE@@_batch_append
#else
#define @@UPPER@@_BATCH_APPEND NULL
#endif

/* The descriptor: the message in data, for the runtime's generic paths. */
const fc_seq_desc @@TYPE@@_desc = {
    "@@NAME@@",
    "@@TYPE@@",
    sizeof(@@TYPE@@),
    offsetof(@@TYPE@@, present),
    @@UPPER@@_CONTEXT_COUNT,
    @@CONTEXT_REF@@,
    @@CONTEXT_ORDER_REF@@,
    @@UPPER@@_LIST_COUNT,
    @@LIST_REF@@,
    @@LIST_ORDER_REF@@,
    @@ALIGNED@@,
    @@TYPE@@_context_lookup,
    @@TYPE@@_list_lookup,
    @@TYPE@@_parse_any,
    @@TYPE@@_init_any,
    @@UPPER@@_BATCH_APPEND
};

