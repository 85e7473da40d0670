/* The featc subcommands and the helpers they share. */
#ifndef FEATC_COMMANDS_H
#define FEATC_COMMANDS_H

#include <stdio.h>

#include <featc/fc_fallback.h>
#include <featc/fc_input.h>

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
int cmd_infer(int argc, char **argv);

/* The input options of every command that reads records: --compression,
 * --max-record-size and, when type is not NULL, --type.  Returns 1 when arg
 * is one of them (*rc: 0, or the usage error already printed), else 0. */
int cli_input_option(const char *arg, const char *usage, fc_input_options *read,
                     fc_payload_kind *type, int *rc);

/* Decodes one payload with the fallback decoder into memory that grows as
 * needed (free d->mem when done). */
typedef struct cli_decoder {
    unsigned char *mem;
    size_t size;
    fc_arena arena;
} cli_decoder;
fc_status cli_decode(cli_decoder *d, const fc_record *rec, fc_payload_kind type, int flags,
                     fc_fallback *fb, fc_error *err);

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
