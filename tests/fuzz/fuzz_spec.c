/* libFuzzer harness for the spec compiler: arbitrary bytes as a spec file,
 * through the whole of featc_compile (scanner, parser, checks,
 * diagnostics with source line and caret, code generation with a driver).
 *
 * It must not crash, leak, hang or read outside the input (ASan, UBSan,
 * libFuzzer's timeouts); a spec it rejects must produce at least one
 * "error:" diagnostic; a spec it accepts must produce a header and a source
 * that name the runtime, identically on a second compile. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/featc.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The diagnostics' text, as featc compile would print it (truncated). */
static char diag_buf[1 << 16];
static size_t diag_len;

static void collect(void *ctx, const featc_diagnostic *d)
{
    size_t n = d->text_len;
    (void)ctx;
    if (n > sizeof diag_buf - 1 - diag_len)
        n = sizeof diag_buf - 1 - diag_len;
    memcpy(diag_buf + diag_len, d->text, n);
    diag_len += n;
}

static int compile(const uint8_t *data, size_t size, int with_diag, featc_output *out)
{
    featc_options o = FEATC_OPTIONS_INIT;
    o.spec_name = "fuzz.feat";
    o.base = "fuzz";
    o.driver = 1;
    o.diag = with_diag ? collect : NULL;
    return featc_compile((const char *)data, size, &o, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    featc_output a, b;
    int r1, r2;
    /* the source is not NUL-terminated: an exact-size copy lets ASan see
     * any read past its end */
    uint8_t *src = (uint8_t *)malloc(size > 0 ? size : 1);
    if (src == NULL)
        return 0;
    if (size > 0)
        memcpy(src, data, size);
    memset(diag_buf, 0, sizeof diag_buf);
    diag_len = 0;
    r1 = compile(src, size, 1, &a);
    r2 = compile(src, size, 0, &b);
    if ((r1 == 0) != (r2 == 0))
        abort(); /* diagnostics on or off changed the verdict */
    if (r1 != 0) {
        /* the first diagnostic starts the buffer: "fuzz.feat:L:C: error: " */
        if (strncmp(diag_buf, "fuzz.feat:", 10) != 0 || strstr(diag_buf, ": error: ") == NULL)
            abort(); /* rejected without saying why */
        if (a.header != NULL || a.mem != NULL)
            abort(); /* a failed compile hands out nothing */
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
    featc_output_free(&a);
    featc_output_free(&b);
    free(src);
    return 0;
}
