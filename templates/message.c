
/* ------------------------------------------------------------------------
 * @@KIND@@ @@NAME@@
 * ------------------------------------------------------------------------ */
@@DEFAULTS@@

/* Fills the default of every FixedLen field whose bit is clear in seen
 * (the record did not have it): for init, and after either parse path. */
static void @@TYPE@@_defaults(@@TYPE@@ *m, const uint32_t *seen)
{
@@FILL_DEFAULTS@@
}

void @@TYPE@@_init(@@TYPE@@ *m)
{
    memset(m, 0, sizeof *m);
    @@TYPE@@_defaults(m, m->present);
}

static int @@TYPE@@_parse_any(void *out, const void *data, size_t len, fc_error *err)
{
    return @@TYPE@@_parse((@@TYPE@@ *)out, data, len, err);
}

static void @@TYPE@@_init_any(void *m)
{
    @@TYPE@@_init((@@TYPE@@ *)m);
}

@@PARSER@@
int @@TYPE@@_parse_batch(fc_column columns[@@UPPER@@_FIELD_COUNT], @@TYPE@@ *scratch,
    const fc_bytes *records, size_t n, fc_error *err)
{
    return fc_batch_parse@@BATCH@@(&@@TYPE@@_desc, columns, scratch, records, n, err);
}

size_t @@TYPE@@_batch_bind(fc_column columns[@@UPPER@@_FIELD_COUNT], size_t b, unsigned forms,
    void *mem, size_t size)
{
    return fc_batch_bind@@BATCH@@(&@@TYPE@@_desc, columns, b, forms, mem, size);
}

size_t @@TYPE@@_encoded_size(const @@TYPE@@ *m, unsigned flags)
{
    size_t size = 0;
    return @@RT@@_encoded_size(&@@TYPE@@_desc, m, flags, &size, NULL) == FC_OK ? size : 0;
}

int @@TYPE@@_serialize(const @@TYPE@@ *m, unsigned flags, void *buf, size_t cap, size_t *len,
    fc_error *err)
{
    return @@RT@@_serialize(&@@TYPE@@_desc, m, flags, buf, cap, len, err);
}
