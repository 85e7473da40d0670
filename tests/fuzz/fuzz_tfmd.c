/* libFuzzer harness for featc import --tfmd: arbitrary bytes as a
 * schema.pbtxt, through featc_import_tfmd (the text-format reader, the
 * TFXIO mapping, the check of the spec it writes).
 *
 * It must not crash, leak, hang or read outside the input (ASan, UBSan,
 * libFuzzer's timeouts); a schema it refuses must produce at least one
 * "error:" diagnostic and no text; one it takes gives a spec that compiles
 * with featc_compile, the same on a second import (deterministic). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/featc.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int errors_seen;

static void collect(void *ctx, const featc_diagnostic *d)
{
    (void)ctx;
    if (d->severity == FEATC_ERROR)
        errors_seen++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    featc_options o = FEATC_OPTIONS_INIT;
    featc_import_options io;
    featc_output out;
    char *a = NULL, *b = NULL;
    size_t alen = 0, blen = 0;
    int r1, r2;
    /* an exact-size copy: ASan sees any read past the end */
    char *src = (char *)malloc(size > 0 ? size : 1);
    if (src == NULL)
        return 0;
    if (size > 0)
        memcpy(src, data, size);
    memset(&io, 0, sizeof io);
    io.max_values = 8;
    io.max_frames = 8;
    o.spec_name = "fuzz.pbtxt";
    o.diag = collect;
    errors_seen = 0;
    r1 = featc_import_tfmd(src, size, &o, &io, &a, &alen);
    o.diag = NULL;
    r2 = featc_import_tfmd(src, size, &o, &io, &b, &blen);
    if ((r1 == 0) != (r2 == 0))
        abort(); /* diagnostics on or off changed the verdict */
    if (r1 != 0) {
        if (errors_seen == 0 || a != NULL || b != NULL)
            abort(); /* refused without an error, or text after errors */
    } else {
        if (a == NULL || b == NULL || alen != blen || memcmp(a, b, alen) != 0)
            abort(); /* not deterministic */
        o.spec_name = "fuzz.feat";
        if (featc_compile(a, alen, &o, &out) != 0)
            abort(); /* the spec written does not compile */
        featc_output_free(&out);
    }
    free(a);
    free(b);
    free(src);
    return 0;
}
