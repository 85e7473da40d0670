/* What every featc command shares: exit codes and the way it reports
 * failures, diagnostics and reads option values.  Used by the compiler's
 * commands (compile.c) and by the record tools (src/tools/); depends only
 * on the compiler's public header. */
#ifndef FEATC_CLI_H
#define FEATC_CLI_H

#include <featc/featc.h>

/* Exit codes, documented in README.md. */
enum {
    EXIT_OK = 0,
    EXIT_RECORD_ERR = 1, /* some record's payload failed */
    EXIT_DATA_ERR = 2,   /* unreadable file, damaged framing, I/O error */
    EXIT_USAGE_ERR = 64  /* bad command line (sysexits EX_USAGE) */
};

/* The compiler's commands (compile.c). */
int cmd_compile(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* A featc_diag_fn: the compiler's diagnostic to stderr, as it words it. */
void cli_print_diagnostic(void *ctx, const featc_diagnostic *d);

/* "--name=value" -> "value" when arg is that option, else NULL. */
const char *cli_option_value(const char *arg, const char *name);
/* Prints "featc: <message>" to stderr and returns code. */
int cli_fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Prints "featc: <message>" and the usage text to stderr; returns EXIT_USAGE_ERR. */
int cli_usage_error(const char *usage, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

#endif /* FEATC_CLI_H */
