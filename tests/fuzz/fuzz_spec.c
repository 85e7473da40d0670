/* libFuzzer harness for the spec compiler: arbitrary bytes as a spec file,
 * through the whole of featc_compile_buffer (scanner, parser, checks,
 * diagnostics with source line and caret, code generation with a driver).
 *
 * It must not crash, leak, hang or read outside the input (ASan, UBSan,
 * libFuzzer's timeouts); a spec it rejects must produce at least one
 * "error:" diagnostic; a spec it accepts must produce a header and a source
 * that name the runtime, identically on a second compile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char diag_buf[1 << 16];

static int compile(const uint8_t *data, size_t size, FILE *diag, pool *p, emit_output *out)
{
    emit_options o;
    memset(&o, 0, sizeof o);
    o.spec_name = "fuzz.feat";
    o.base = "fuzz";
    o.driver = 1;
    memset(out, 0, sizeof *out);
    return featc_compile_buffer(p, "fuzz.feat", (const char *)data, size, diag, &o, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pool p1, p2;
    emit_output a, b;
    FILE *diag;
    int r1, r2;
    /* the source is not NUL-terminated: an exact-size copy lets ASan see
     * any read past its end */
    uint8_t *src = (uint8_t *)malloc(size > 0 ? size : 1);
    if (src == NULL)
        return 0;
    if (size > 0)
        memcpy(src, data, size);
    memset(diag_buf, 0, sizeof diag_buf);
    diag = fmemopen(diag_buf, sizeof diag_buf - 1, "w");
    if (diag == NULL) {
        free(src);
        return 0;
    }
    pool_init(&p1);
    pool_init(&p2);
    r1 = compile(src, size, diag, &p1, &a);
    fclose(diag);
    r2 = compile(src, size, NULL, &p2, &b);
    if ((r1 == 0) != (r2 == 0))
        abort(); /* diagnostics on or off changed the verdict */
    if (r1 != 0) {
        /* the first diagnostic starts the buffer: "fuzz.feat:L:C: error: " */
        if (strncmp(diag_buf, "fuzz.feat:", 10) != 0 || strstr(diag_buf, ": error: ") == NULL)
            abort(); /* rejected without saying why */
    } else {
        if (a.header == NULL || a.source == NULL || a.driver == NULL ||
            strstr(a.header, "#include <featc/fc_example.h>") == NULL)
            abort();
        if (a.header_len != b.header_len || a.source_len != b.source_len ||
            a.driver_len != b.driver_len || memcmp(a.header, b.header, a.header_len) != 0 ||
            memcmp(a.source, b.source, a.source_len) != 0 ||
            memcmp(a.driver, b.driver, a.driver_len) != 0)
            abort(); /* not deterministic */
    }
    pool_free(&p1);
    pool_free(&p2);
    free(src);
    return 0;
}
