/* What fuzz_arrow.c and fuzz_parquet.c share: rows of an Arrow batch
 * through fc_arrow_rows into records the serializer writes and the
 * generated parser must read back.  Static: each harness has its own
 * copy. */
#ifndef FEATC_FUZZ_ROWS_H
#define FEATC_FUZZ_ROWS_H

#include <featc/fc.h>
#include <featc/fc_arrow.h>
#include <featc/fc_serialize.h>

#include <stdlib.h>
#include <string.h>

static unsigned char out[1 << 20]; /* (x : int64[65536] takes 64 KiB and more) */
static unsigned char direct_out[1 << 20];

static void must_say(const fc_error *err)
{
    if (err->message[0] == '\0')
        abort();
}

/* Rows of batch a through message md or sd (whose struct is msg). */
static void convert(fc_arrow_rows *rows, const fc_message_desc *md, const fc_seq_desc *sd,
                    const struct ArrowSchema *s, const struct ArrowArray *a, void *msg,
                    void *back)
{
    int64_t i;
    for (i = 0; i < a->length && i < 4096; i++) {
        fc_error err;
        size_t len = 0;
        int rc;
        /* the row straight into a record: 0 (not taken), or the general
         * path's size and bytes, which must then succeed */
        size_t direct = fc_arrow_rows_serialize(rows, s, a, i, direct_out, sizeof direct_out);
        fc_error_clear(&err);
        rc = fc_arrow_rows_get(rows, s, a, i, msg, &err);
        if (rc != FC_OK) {
            must_say(&err);
            if (direct != 0)
                abort();
            continue;
        }
        rc = md != NULL ? fc_ex_serialize(md, msg, FC_OMIT_DEFAULTS, out, sizeof out, &len, &err)
                        : fc_seq_serialize(sd, msg, FC_OMIT_DEFAULTS, out, sizeof out, &len,
                                           &err);
        if (direct != 0 && ((rc != FC_OK && rc != FC_ERR_NO_SPACE) || direct != len ||
                            (rc == FC_OK && memcmp(direct_out, out, len) != 0)))
            abort();
        if (rc == FC_ERR_NO_SPACE)
            continue;
        if (rc != FC_OK) {
            must_say(&err);
            continue;
        }
        /* what the serializer wrote, the parser reads */
        if ((md != NULL ? md->parse(back, out, len, &err) : sd->parse(back, out, len, &err)) !=
            FC_OK)
            abort();
    }
}

#endif
