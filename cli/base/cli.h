/* What every featc command shares: exit codes, option parsing (GNU
 * getopt_long conventions), the way it reports failures and diagnostics,
 * and where its inputs come from: the helpers of every command in
 * commands/ (this folder, base/, includes none of them). */
#ifndef FEATC_CLI_H
#define FEATC_CLI_H

#include <getopt.h>
#include <stdio.h>

#include <featc/featc.h>
#include <featc/fc_input.h>

/* Exit codes, documented in README.md and featc.1. */
enum {
    EXIT_OK = 0,
    EXIT_RECORD_ERR = 1, /* some record's payload failed; errors in a spec */
    EXIT_DATA_ERR = 2,   /* unreadable file, damaged framing, I/O error */
    EXIT_USAGE_ERR = 64  /* bad command line (sysexits EX_USAGE) */
};

/* One command's command line: its name ("cat"), its --help text, getopt's
 * short options (without the leading ':') and long options.  Every table
 * holds CLI_COMMON_OPTIONS and ends with {0, 0, 0, 0}. */
typedef struct cli_command {
    const char *name;
    const char *usage;
    const char *shortopts;
    const struct option *longopts;
} cli_command;

/* Codes of long options without a short form start here. */
enum { CLI_OPT_VERSION = 0x100, CLI_OPT_FIRST };
#define CLI_COMMON_OPTIONS \
    {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, CLI_OPT_VERSION}

/* The next option of argv (argv[0] is the command's name), as getopt_long
 * returns it, with its value in optarg.  Handles -h/--help and --version
 * itself, and reports unknown options, missing values and values given to
 * options that take none as usage errors.  Returns 0 when the options are
 * over: then *rc is -1 when the command should go on with argv[optind...],
 * else the exit status to return at once (help or version printed: 0; a
 * usage error: 64). */
int cli_next_option(const cli_command *c, int argc, char **argv, int *rc);

/* The operands after the options: argv[optind...], or "-" (standard input)
 * when there are none and standard input is not a terminal.  Returns 0 with
 * *files and *n set, or the usage error's exit status. */
int cli_operands(const cli_command *c, int argc, char **argv, char ***files, int *n);

/* "featc VERSION (CRC-32C: IMPL)" on standard output. */
int cli_print_version(void);

/* A featc_diag_fn: the compiler's diagnostic to stderr, as it words it. */
void cli_print_diagnostic(void *ctx, const featc_diagnostic *d);

/* Prints "featc: <message>" to stderr and returns code. */
int cli_fail(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Writes data to path through a temporary file beside it (path.XXXXXX),
 * renamed over path once every byte is written and the file closed: a full
 * disk or a killed run never leaves a truncated file under path.  Returns
 * EXIT_OK, or EXIT_DATA_ERR after printing the error. */
int cli_write_file(const char *path, const char *data, size_t len);
/* The same to path, or (path NULL) to standard output, flushed and checked. */
int cli_write_output(const char *path, const char *data, size_t len);
/* The same for output written piece by piece (fc_output_open and
 * fc_output_close, <featc/fc_input.h>, with their errors printed):
 * cli_temp_open creates the temporary file (out->f), cli_temp_close
 * closes it and, when ok and every write succeeded, renames it over path;
 * otherwise removes it (the error printed when it is a write error; when
 * ok is 0 the caller reported why).  EXIT_OK or EXIT_DATA_ERR. */
int cli_temp_open(fc_output *out, const char *path);
int cli_temp_close(fc_output *out, const char *path, int ok);

/* Reads a whole spec file ("-": standard input, at most 16 MiB); NULL
 * with the error printed on failure. */
char *cli_read_file(const char *path, size_t *len);
/* The same with a bound of max bytes, and what the file is for the message
 * past it ("statistics"). */
char *cli_read_file_max(const char *path, size_t *len, size_t max, const char *what);
/* Prints "featc CMD: <message>" and "Try 'featc CMD --help' ..." to stderr
 * (c NULL: "featc: ..." and "Try 'featc --help' ..."); returns
 * EXIT_USAGE_ERR. */
int cli_usage_error(const cli_command *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* The one operand of a command that reads one file (a spec, a schema): its
 * bytes (malloc'd, *len of them) and its name for messages ("<stdin>" for
 * "-"); NULL with *rc the exit status (a usage error, or the file unread,
 * said). */
char *cli_read_operand(const cli_command *c, int argc, char **argv, const char *what,
                       size_t *len, const char **name, int *rc);

#endif /* FEATC_CLI_H */
