/* featc compile / featc check: spec files to C, or just their diagnostics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/featc.h>

#include "cli.h"

#define MAX_SPEC_SIZE ((size_t)16 << 20)

static const char *const compile_usage =
    "usage: featc compile [-o DIR] [--base NAME] [--driver[=EXAMPLE]] SPEC\n"
    "       featc check SPEC...\n"
    "\n"
    "compile writes DIR/NAME.h and DIR/NAME.c (NAME: the spec's file name\n"
    "without its extension; DIR: the current directory), and with --driver\n"
    "DIR/NAME_main.c, a main() that prints TFRecord files as JSON through the\n"
    "generated parser of EXAMPLE (default: the spec's first example).\n"
    "check only reports problems.  Exit status: 0 clean, 1 errors in a spec,\n"
    "2 a file could not be read or written, 64 usage.\n";

/* Reads a whole file; NULL with a message on failure. */
static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    size_t n = 0, cap = 4096;
    if (f == NULL) {
        cli_fail(EXIT_DATA_ERR, "%s: %s", path, strerror(errno));
        return NULL;
    }
    buf = (char *)malloc(cap);
    while (buf != NULL) {
        size_t got;
        if (n == cap) {
            char *nb;
            if (cap >= MAX_SPEC_SIZE) {
                cli_fail(EXIT_DATA_ERR, "%s: larger than %zu bytes; not a spec", path,
                         MAX_SPEC_SIZE);
                free(buf);
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
        fclose(f);
        return NULL;
    }
    fclose(f);
    *len = n;
    return buf;
}

static int write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return cli_fail(EXIT_DATA_ERR, "%s: %s", path, strerror(errno));
    if (fwrite(data, 1, len, f) != len || fclose(f) != 0)
        return cli_fail(EXIT_DATA_ERR, "%s: write error", path);
    return EXIT_OK;
}

static char *join(const char *dir, const char *name, const char *suffix)
{
    size_t a = strlen(dir), b = strlen(name), c = strlen(suffix);
    char *r = (char *)malloc(a + b + c + 2);
    if (r == NULL)
        return NULL;
    memcpy(r, dir, a);
    r[a] = '/';
    memcpy(r + a + 1, name, b);
    memcpy(r + a + 1 + b, suffix, c + 1);
    return r;
}

/* Diagnostics go to stderr as the compiler words them. */
static void print_diagnostic(void *ctx, const featc_diagnostic *d)
{
    (void)ctx;
    fwrite(d->text, 1, d->text_len, stderr);
}

/* Writes DIR/BASE.h, DIR/BASE.c and, with a driver, DIR/BASE_main.c. */
static int write_outputs(const char *dir, const char *base, const featc_output *out)
{
    char *h = join(dir, base, ".h"), *c = join(dir, base, ".c");
    char *m = join(dir, base, "_main.c");
    int rc = EXIT_OK;
    if (h == NULL || c == NULL || m == NULL)
        rc = cli_fail(EXIT_DATA_ERR, "out of memory");
    if (rc == EXIT_OK)
        rc = write_file(h, out->header, out->header_len);
    if (rc == EXIT_OK)
        rc = write_file(c, out->source, out->source_len);
    if (rc == EXIT_OK && out->driver != NULL)
        rc = write_file(m, out->driver, out->driver_len);
    free(h);
    free(c);
    free(m);
    return rc;
}

static int compile_one(const char *path, const char *dir, const char *base_opt, int driver,
                       const char *driver_msg, int check_only)
{
    size_t len = 0;
    char *src = read_file(path, &len);
    featc_options o = FEATC_OPTIONS_INIT;
    featc_output out;
    char base[256];
    int rc;
    if (src == NULL)
        return EXIT_DATA_ERR;
    if (base_opt != NULL) {
        snprintf(base, sizeof base, "%s", base_opt);
    } else {
        const char *b = strrchr(path, '/');
        b = b != NULL ? b + 1 : path;
        snprintf(base, sizeof base, "%.*s", (int)strcspn(b, "."), b);
    }
    o.spec_name = path;
    o.base = base;
    o.driver = driver;
    o.driver_message = driver_msg;
    o.diag = print_diagnostic;
    rc = featc_compile(src, len, &o, check_only ? NULL : &out);
    free(src);
    if (rc != 0)
        return EXIT_RECORD_ERR;
    if (check_only)
        return EXIT_OK;
    rc = write_outputs(dir, base, &out);
    featc_output_free(&out);
    return rc;
}

int cmd_compile(int argc, char **argv)
{
    const char *dir = ".", *base = NULL, *driver_msg = NULL, *spec = NULL;
    int i, driver = 0;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(compile_usage, stdout);
            return EXIT_OK;
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if ((v = cli_option_value(a, "--output")) != NULL) {
            dir = v;
        } else if (strcmp(a, "--base") == 0 && i + 1 < argc) {
            base = argv[++i];
        } else if ((v = cli_option_value(a, "--base")) != NULL) {
            base = v;
        } else if (strcmp(a, "--driver") == 0) {
            driver = 1;
        } else if ((v = cli_option_value(a, "--driver")) != NULL) {
            driver = 1;
            driver_msg = v;
        } else if (a[0] == '-' && a[1] != '\0') {
            return cli_usage_error(compile_usage, "unknown option '%s'", a);
        } else if (spec == NULL) {
            spec = a;
        } else {
            return cli_usage_error(compile_usage, "one spec per compile (got '%s' and '%s')",
                                   spec, a);
        }
    }
    if (spec == NULL)
        return cli_usage_error(compile_usage, "no spec given");
    return compile_one(spec, dir, base, driver, driver_msg, 0);
}

int cmd_check(int argc, char **argv)
{
    int i, rc = EXIT_OK, n = 0;
    for (i = 1; i < argc; i++) {
        int r;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(compile_usage, stdout);
            return EXIT_OK;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return cli_usage_error(compile_usage, "unknown option '%s'", argv[i]);
        n++;
        r = compile_one(argv[i], ".", NULL, 0, NULL, 1);
        if (r > rc)
            rc = r;
    }
    if (n == 0)
        return cli_usage_error(compile_usage, "no spec given");
    return rc;
}
