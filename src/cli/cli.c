/* The helpers of cli.h. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void cli_print_diagnostic(void *ctx, const featc_diagnostic *d)
{
    (void)ctx;
    fwrite(d->text, 1, d->text_len, stderr);
}

const char *cli_option_value(const char *arg, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) == 0 && arg[n] == '=')
        return arg + n + 1;
    return NULL;
}

int cli_fail(int code, const char *fmt, ...)
{
    va_list ap;
    fputs("featc: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return code;
}

int cli_usage_error(const char *text, const char *fmt, ...)
{
    va_list ap;
    fputs("featc: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\n\n", stderr);
    fputs(text, stderr);
    return EXIT_USAGE_ERR;
}
