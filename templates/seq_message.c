
/* ------------------------------------------------------------------------
 * sequence_example @@NAME@@
 * ------------------------------------------------------------------------ */
@@DEFAULTS@@
@@CONTEXT_DESCS@@
@@LIST_DESCS@@

/* Context feature key -> context index; -1 for a key the spec does not name. */
static int @@TYPE@@_context_lookup(const void *ctx, const uint8_t *key, size_t len)
{
    (void)ctx;
@@CONTEXT_LOOKUP@@
    return -1;
}

/* Feature list key -> list index (its field number minus the context
 * count); -1 for a key the spec does not name. */
static int @@TYPE@@_list_lookup(const void *ctx, const uint8_t *key, size_t len)
{
    (void)ctx;
@@LIST_LOOKUP@@
    return -1;
}

void @@TYPE@@_init(@@TYPE@@ *m)
{
    memset(m, 0, sizeof *m);
@@INIT@@
}

int @@TYPE@@_parse(@@TYPE@@ *out, const void *data, size_t len, fc_error *err)
{
    fc_feature_ref ref[@@UPPER@@_FIELD_COUNT];
    return fc_seq_parse(&@@TYPE@@_desc, out, data, len, ref, err);
}

static int @@TYPE@@_parse_any(void *out, const void *data, size_t len, fc_error *err)
{
    return @@TYPE@@_parse((@@TYPE@@ *)out, data, len, err);
}

static void @@TYPE@@_init_any(void *m)
{
    @@TYPE@@_init((@@TYPE@@ *)m);
}

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
    @@TYPE@@_init_any
};

int @@TYPE@@_parse_batch(fc_column columns[@@UPPER@@_FIELD_COUNT], @@TYPE@@ *scratch,
    const fc_bytes *records, size_t n, fc_error *err)
{
    return fc_batch_parse_seq(&@@TYPE@@_desc, columns, scratch, records, n, err);
}

size_t @@TYPE@@_batch_bind(fc_column columns[@@UPPER@@_FIELD_COUNT], size_t b, unsigned forms,
    void *mem, size_t size)
{
    return fc_batch_bind_seq(&@@TYPE@@_desc, columns, b, forms, mem, size);
}

size_t @@TYPE@@_encoded_size(const @@TYPE@@ *m, unsigned flags)
{
    size_t size = 0;
    return fc_seq_encoded_size(&@@TYPE@@_desc, m, flags, &size, NULL) == FC_OK ? size : 0;
}

int @@TYPE@@_serialize(const @@TYPE@@ *m, unsigned flags, void *buf, size_t cap, size_t *len,
    fc_error *err)
{
    return fc_seq_serialize(&@@TYPE@@_desc, m, flags, buf, cap, len, err);
}
