/* The featc subcommands and the helpers they share. */
#ifndef FEATC_COMMANDS_H
#define FEATC_COMMANDS_H

#include <stdio.h>

/* Exit codes, documented in README.md. */
enum {
    EXIT_OK = 0,
    EXIT_RECORD_ERR = 1, /* some record's payload failed */
    EXIT_DATA_ERR = 2,   /* unreadable file, damaged framing, I/O error */
    EXIT_USAGE_ERR = 64  /* bad command line (sysexits EX_USAGE) */
};

int cmd_cat(int argc, char **argv);
int cmd_count(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_check(int argc, char **argv);

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

#endif /* FEATC_COMMANDS_H */
