/* libFuzzer harness for featc breaking: the input is two specs, OLD and NEW,
 * split at the first "\n===\n" (without one, the input against itself).
 *
 * It must not crash, leak, hang or read outside the input (ASan, UBSan,
 * libFuzzer's timeouts); a spec compared with itself has no breaking change;
 * a result above 0 comes with as many "error:" diagnostics of NEW (at most
 * the compiler's 20 before it stops), each naming its rule in brackets. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <featc/featc.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int errors, bracketed;

static void count(void *ctx, const featc_diagnostic *d)
{
    (void)ctx;
    if (d->severity != FEATC_ERROR)
        return;
    errors++;
    if (d->line > 0 || strstr(d->message, "message ") != NULL) {
        size_t n = strlen(d->message);
        bracketed += n > 0 && d->message[n - 1] == ']';
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *src = (const char *)data, *cut = NULL;
    size_t i, old_len = size, new_at = 0;
    featc_options oo = FEATC_OPTIONS_INIT, no = FEATC_OPTIONS_INIT;
    int found;
    for (i = 0; i + 5 <= size && cut == NULL; i++)
        if (memcmp(src + i, "\n===\n", 5) == 0)
            cut = src + i;
    if (cut != NULL) {
        old_len = (size_t)(cut - src);
        new_at = old_len + 5;
    }
    oo.spec_name = "old.feat";
    no.spec_name = "new.feat";
    no.diag = count;
    errors = bracketed = 0;
    found = featc_breaking(src, old_len, &oo, src + new_at, cut != NULL ? size - new_at : size,
                           &no, NULL);
    if (found > 0 && (bracketed != (found < 20 ? found : 20) || errors < bracketed))
        abort();
    if (cut == NULL && found > 0)
        abort(); /* a spec against itself */
    found = featc_breaking(src, old_len, &oo, src, old_len, &oo, NULL);
    if (found > 0)
        abort();
    return 0;
}
