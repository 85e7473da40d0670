/* The helpers of cli.h. */
#include "base/cli.h"
#include <featc/fc_codecs.h>
#include <featc/fc_input.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <featc/fc.h>

void cli_print_diagnostic(void *ctx, const featc_diagnostic *d)
{
    (void)ctx;
    fwrite(d->text, 1, d->text_len, stderr);
}

int cli_print_version(void)
{
    printf("featc %s (CRC-32C: %s; inflate: %s; varints: %s; parquet: %s; parquet reads "
           "also: %s)\n",
           FC_VERSION_STRING, fc_crc32c_impl(), fc_inflate_impl(), fc_varint_impl(),
           fc_codecs_names(), fc_codecs_read_names());
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_fail(EXIT_DATA_ERR, "error writing standard output");
    return EXIT_OK;
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

int cli_usage_error(const cli_command *c, const char *fmt, ...)
{
    va_list ap;
    const char *sep = c != NULL ? " " : "", *name = c != NULL ? c->name : "";
    fprintf(stderr, "featc%s%s: ", sep, name);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'featc%s%s --help' for more information.\n", sep, name);
    return EXIT_USAGE_ERR;
}

/* The long name of the option whose code is val, or NULL. */
static const char *long_name(const cli_command *c, int val)
{
    const struct option *o;
    for (o = c->longopts; o->name != NULL; o++)
        if (o->flag == NULL && o->val == val)
            return o->name;
    return NULL;
}

int cli_next_option(const cli_command *c, int argc, char **argv, int *rc)
{
    char shortopts[64];
    int opt;
    const char *name;
    *rc = -1;
    /* ':' first: a missing value comes back as ':'; opterr 0: featc words
     * every usage error itself, the same under every libc. */
    snprintf(shortopts, sizeof shortopts, ":%s", c->shortopts);
    opterr = 0;
    opt = getopt_long(argc, argv, shortopts, c->longopts, NULL);
    switch (opt) {
    case -1:
        return 0;
    case 'h':
        fputs(c->usage, stdout);
        *rc = fflush(stdout) != 0 || ferror(stdout)
                  ? cli_fail(EXIT_DATA_ERR, "error writing standard output")
                  : EXIT_OK;
        return 0;
    case CLI_OPT_VERSION:
        *rc = cli_print_version();
        return 0;
    case ':':
        name = long_name(c, optopt);
        /* argv[optind - 1] is the option as written: -o, --output or --out */
        if (optind >= 1 && optind <= argc && strncmp(argv[optind - 1], "--", 2) == 0)
            *rc = cli_usage_error(c, "option '%s' needs a value", argv[optind - 1]);
        else if (optopt > 0 && optopt < 0x80)
            *rc = cli_usage_error(c, "option '-%c' needs a value", optopt);
        else
            *rc = cli_usage_error(c, "option '--%s' needs a value", name != NULL ? name : "?");
        return 0;
    case '?':
        if (optopt > 0 && (name = long_name(c, optopt)) != NULL &&
            strncmp(argv[optind - 1], "--", 2) == 0) {
            *rc = cli_usage_error(c, "option '--%s' takes no value", name);
        } else if (optopt > 0) {
            *rc = cli_usage_error(c, "unknown option '-%c'", optopt);
        } else {
            const char *a = argv[optind - 1];
            *rc = cli_usage_error(c, "unknown option '%.*s'", (int)strcspn(a, "="), a);
        }
        return 0;
    default:
        return opt;
    }
}

int cli_operands(const cli_command *c, int argc, char **argv, char ***files, int *n)
{
    static char dash[] = "-", *stdin_only[] = {dash, NULL};
    if (optind < argc) {
        *files = argv + optind;
        *n = argc - optind;
        return 0;
    }
    if (isatty(STDIN_FILENO))
        return cli_usage_error(c, "no input file (standard input is a terminal)");
    *files = stdin_only;
    *n = 1;
    return 0;
}

int cli_temp_open(fc_output *out, const char *path)
{
    int e = fc_output_open(out, path);
    if (e == ENOMEM)
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    if (e != 0)
        return cli_fail(EXIT_DATA_ERR, "%s: %s", path, strerror(e));
    return EXIT_OK;
}

int cli_temp_close(fc_output *out, const char *path, int ok)
{
    int e = fc_output_close(out, path, ok);
    if (e != 0)
        return cli_fail(EXIT_DATA_ERR, "%s: write error: %s", path, strerror(e));
    return ok ? EXIT_OK : EXIT_DATA_ERR;
}

int cli_write_file(const char *path, const char *data, size_t len)
{
    fc_output out;
    if (cli_temp_open(&out, path) != EXIT_OK)
        return EXIT_DATA_ERR;
    if (fwrite(data, 1, len, out.f) != len) {
        int e = errno;
        cli_temp_close(&out, path, 0);
        return cli_fail(EXIT_DATA_ERR, "%s: write error: %s", path, strerror(e));
    }
    return cli_temp_close(&out, path, 1);
}

int cli_write_output(const char *path, const char *data, size_t len)
{
    if (path != NULL)
        return cli_write_file(path, data, len);
    fwrite(data, 1, len, stdout);
    return fflush(stdout) != 0 || ferror(stdout)
               ? cli_fail(EXIT_DATA_ERR, "error writing standard output")
               : EXIT_OK;
}

char *cli_read_operand(const cli_command *c, int argc, char **argv, const char *what,
                       size_t *len, const char **name, int *rc)
{
    char **files = NULL, *src;
    int n = 0;
    if ((*rc = cli_operands(c, argc, argv, &files, &n)) != 0)
        return NULL;
    if (n != 1) {
        *rc = cli_usage_error(c, "one %s per %s (got %d)", what, c->name, n);
        return NULL;
    }
    src = cli_read_file(files[0], len);
    if (src == NULL) {
        *rc = EXIT_DATA_ERR;
        return NULL;
    }
    *name = strcmp(files[0], "-") == 0 ? "<stdin>" : files[0];
    return src;
}

#define MAX_SPEC_SIZE ((size_t)16 << 20)

char *cli_read_file(const char *path, size_t *len)
{
    return cli_read_file_max(path, len, MAX_SPEC_SIZE, "a spec or schema");
}

char *cli_read_file_max(const char *path, size_t *len, size_t max, const char *what)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    char *buf;
    size_t n = 0, cap = 4096;
    if (f == NULL) {
        cli_fail(EXIT_DATA_ERR, "%s: %s", path, strerror(errno));
        return NULL;
    }
    if (is_stdin)
        path = "<stdin>";
    buf = (char *)malloc(cap);
    while (buf != NULL) {
        size_t got;
        if (n == cap) {
            char *nb;
            if (cap >= max) {
                cli_fail(EXIT_DATA_ERR, "%s: larger than %zu bytes, the most featc reads as %s",
                         path, max, what);
                free(buf);
                if (!is_stdin)
                    fclose(f);
                return NULL;
            }
            nb = (char *)realloc(buf, cap * 2);
            if (nb == NULL)
                break;
            buf = nb;
            cap *= 2;
        }
        got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (buf == NULL || ferror(f)) {
        cli_fail(EXIT_DATA_ERR, "%s: %s", path, buf == NULL ? "out of memory" : "read error");
        free(buf);
        if (!is_stdin)
            fclose(f);
        return NULL;
    }
    if (!is_stdin)
        fclose(f);
    *len = n;
    return buf;
}
