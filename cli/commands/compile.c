/* featc compile / featc check / featc export: spec files to C, to
 * TensorFlow's Python, or just their diagnostics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <featc/featc.h>

#include "commands.h"
#include "base/cli.h"
#include "base/progress.h"


static const char *const compile_usage =
    "usage: featc compile [options] [SPEC]\n"
    "       featc check [options] [SPEC...]\n"
    "       featc check [options] SPEC --data [FILE...]\n"
    "\n"
    "compile writes DIR/NAME.h and DIR/NAME.c (NAME: the spec's file name\n"
    "without its extension; DIR: the current directory, created if missing), and\n"
    "with --driver DIR/NAME_main.c, a main() that prints TFRecord files as JSON\n"
    "through the generated parser of EXAMPLE (default: the spec's first example).\n"
    "check only reports problems; with --tf it also warns where TensorFlow\n"
    "would refuse what featc accepts on purpose (a scalar default that fills a\n"
    "shape), so that a spec is checked as TensorFlow will see it; --werror\n"
    "makes those warnings fail.  SPEC may be - for standard input, which is\n"
    "also read when no SPEC is given and it is not a terminal; compile then\n"
    "needs --base.\n"
    "\n"
    "options:\n"
    "  -o, --output DIR        where to write (default .; created if missing)\n"
    "  -b, --base NAME         NAME of the generated files (default: from SPEC)\n"
    "  --driver[=EXAMPLE]      also write NAME_main.c, a JSON-printing main()\n"
    "  --python                also write NAME_py.c, the CPython module NAME\n"
    "                          (read, parse; NumPy batches: docs/python.md)\n"
    "  --depfile FILE          also write a Make rule naming the generated files\n"
    "                          and the spec they depend on (as gcc -MD -MF FILE\n"
    "                          and protoc --dependency_out do)\n"
    "  -M                      print that rule and write nothing else (gcc -M)\n"
    "  --tf                    (check) warn where TensorFlow refuses the spec\n"
    "  --werror                (check) exit 1 on warnings too\n"
    "  --data                  (check) read the FILEs after SPEC through its\n"
    "                          message, without generating C, and print each\n"
    "                          record that fails (TensorFlow's error, record,\n"
    "                          offset), then a summary; exit 1 on any failure\n"
    "  --message=NAME          (check --data) the message (default: the first)\n"
    "  --json                  (check --data) print every record as the\n"
    "                          generated JSON driver does\n"
    "  --max-errors=N          (check --data) errors printed (default 100; the\n"
    "                          summary counts them all)\n"
    "  -c, --compression=auto|none|zlib|gzip, --crc=verify|skip|none,\n"
    "  --max-record-size=N     (check --data) as for featc cat\n"
    "  -q, --quiet, --progress (check --data) progress on standard error\n"
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 clean (warnings allowed); 1 errors in a spec, or warnings\n"
    "with --werror, or (--data) a record that fails; 2 a file could not be read\n"
    "or written, or is damaged; 64 usage error.\n";

/* (after the record tools' codes: check --data takes some of theirs) */
enum {
    OPT_DRIVER = CLI_OPT_FIRST + 64,
    OPT_DEPFILE,
    OPT_TF,
    OPT_WERROR,
    OPT_PYTHON,
    OPT_DATA,
    OPT_MESSAGE,
    OPT_MAX_ERRORS,
    OPT_TFMD
};

static const struct option compile_long[] = {
    {"output", required_argument, NULL, 'o'},
    {"base", required_argument, NULL, 'b'},
    {"driver", optional_argument, NULL, OPT_DRIVER},
    {"python", no_argument, NULL, OPT_PYTHON},
    {"depfile", required_argument, NULL, OPT_DEPFILE},
    CLI_COMMON_OPTIONS,
    {NULL, 0, NULL, 0}};
static const struct option check_long[] = {{"tf", no_argument, NULL, OPT_TF},
                                           {"werror", no_argument, NULL, OPT_WERROR},
                                           {"data", no_argument, NULL, OPT_DATA},
                                           {"message", required_argument, NULL, OPT_MESSAGE},
                                           {"json", no_argument, NULL, CLI_OPT_JSON},
                                           {"max-errors", required_argument, NULL,
                                            OPT_MAX_ERRORS},
                                           {"crc", required_argument, NULL, CLI_OPT_CRC},
                                           CLI_INPUT_OPTIONS,
                                           PROGRESS_OPTIONS,
                                           CLI_COMMON_OPTIONS,
                                           {NULL, 0, NULL, 0}};

static const cli_command compile_cmd = {"compile", compile_usage, "o:b:Mh", compile_long};
static const cli_command check_cmd = {"check", compile_usage, "c:qh", check_long};

/* What featc compile (or check, with tf and werror) was asked for. */
typedef struct compile_opts {
    const char *dir, *base, *driver_msg, *depfile;
    int driver, deps_only, python;
    int check, tf, werror;
} compile_opts;


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

/* Creates dir and its missing parents (mkdir -p); an existing one is fine. */
static int make_dirs(const char *dir)
{
    char *p = (char *)malloc(strlen(dir) + 1), *q;
    int rc = EXIT_OK;
    if (p == NULL)
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    strcpy(p, dir);
    for (q = p + 1;; q++) {
        char c = *q;
        if (c != '/' && c != '\0')
            continue;
        *q = '\0';
        if (mkdir(p, 0777) != 0 && errno != EEXIST) {
            rc = cli_fail(EXIT_DATA_ERR, "%s: %s", p, strerror(errno));
            break;
        }
        *q = c;
        if (c == '\0')
            break;
    }
    free(p);
    return rc;
}

/* A path as Make reads it in a rule: spaces, '#' and ':' escaped, '$'
 * doubled (gcc's depfile spelling). */
static void put_make_path(FILE *f, const char *path)
{
    for (; *path != '\0'; path++) {
        if (*path == ' ' || *path == '#' || *path == ':')
            fputc('\\', f);
        else if (*path == '$')
            fputc('$', f);
        fputc(*path, f);
    }
}

/* "DIR/NAME.h DIR/NAME.c [DIR/NAME_main.c]: SPEC", then "SPEC:" so that a
 * removed spec does not stop make (gcc -MP).  A spec read from standard
 * input ("-") gives the first line without a prerequisite. */
static int write_rule(FILE *f, char *const *outputs, size_t n, const char *spec)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (i > 0)
            fputc(' ', f);
        put_make_path(f, outputs[i]);
    }
    fputc(':', f);
    if (strcmp(spec, "-") != 0) { /* standard input: nothing to depend on */
        fputc(' ', f);
        put_make_path(f, spec);
        fputs("\n\n", f);
        put_make_path(f, spec);
        fputc(':', f);
    }
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

static int write_depfile(const char *path, char *const *outputs, size_t n, const char *spec)
{
    char *text = NULL;
    size_t len = 0;
    int rc;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    rc = write_rule(f, outputs, n, spec);
    if (fclose(f) != 0 || rc != 0)
        rc = cli_fail(EXIT_DATA_ERR, "out of memory");
    else
        rc = cli_write_file(path, text, len);
    free(text);
    return rc;
}

/* Writes DIR/BASE.h, DIR/BASE.c and, when asked, DIR/BASE_main.c (the
 * driver) and DIR/BASE_py.c (the Python module), and the dependency rule
 * (-M: the rule alone, to standard output). */
static int write_outputs(const compile_opts *co, const char *spec, const char *base,
                         const featc_output *out)
{
    const char *suffix[4] = {".h", ".c", "_main.c", "_py.c"};
    const char *text[4];
    size_t len[4], n = 0, i;
    char *files[4];
    int rc = EXIT_OK;
    text[0] = out->header;
    len[0] = out->header_len;
    text[1] = out->source;
    len[1] = out->source_len;
    text[2] = out->driver;
    len[2] = out->driver_len;
    text[3] = out->python;
    len[3] = out->python_len;
    for (i = 0; i < 4; i++) { /* the files there are, in this order */
        if (text[i] == NULL)
            continue;
        text[n] = text[i];
        len[n] = len[i];
        files[n] = join(co->dir, base, suffix[i]);
        if (files[n++] == NULL)
            rc = cli_fail(EXIT_DATA_ERR, "out of memory");
    }
    if (rc == EXIT_OK && co->deps_only) {
        if (write_rule(stdout, files, n, spec) != 0 || fflush(stdout) != 0)
            rc = cli_fail(EXIT_DATA_ERR, "error writing standard output");
    } else if (rc == EXIT_OK) {
        rc = make_dirs(co->dir);
        for (i = 0; i < n && rc == EXIT_OK; i++)
            rc = cli_write_file(files[i], text[i], len[i]);
        if (rc == EXIT_OK && co->depfile != NULL)
            rc = write_depfile(co->depfile, files, n, spec);
    }
    for (i = 0; i < n; i++)
        free(files[i]);
    return rc;
}

/* Compiles one spec, or with co->check only checks it. */
static int compile_one(const char *path, const compile_opts *co)
{
    size_t len = 0;
    char *src = cli_read_file(path, &len);
    featc_options o = FEATC_OPTIONS_INIT;
    featc_output out;
    char base[256];
    int rc;
    if (src == NULL)
        return EXIT_DATA_ERR;
    if (co->base != NULL) {
        snprintf(base, sizeof base, "%s", co->base);
    } else {
        const char *b = strrchr(path, '/');
        b = b != NULL ? b + 1 : path;
        snprintf(base, sizeof base, "%.*s", (int)strcspn(b, "."), b);
    }
    o.spec_name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    o.base = base;
    o.driver = co->driver;
    o.driver_message = co->driver_msg;
    o.python = co->python;
    o.diag = cli_print_diagnostic;
    if (co->check && co->tf) {
        int warnings = 0;
        rc = featc_check_tf(src, len, &o, &warnings);
        free(src);
        return rc != 0 || (co->werror && warnings > 0) ? EXIT_RECORD_ERR : EXIT_OK;
    }
    rc = featc_compile(src, len, &o, co->check ? NULL : &out);
    free(src);
    if (rc != 0)
        return EXIT_RECORD_ERR;
    if (co->check)
        return EXIT_OK;
    rc = write_outputs(co, path, base, &out);
    featc_output_free(&out);
    return rc;
}

int cmd_compile(int argc, char **argv)
{
    compile_opts co;
    char **specs;
    int opt, rc, n;
    memset(&co, 0, sizeof co);
    co.dir = ".";
    while ((opt = cli_next_option(&compile_cmd, argc, argv, &rc)) != 0) {
        switch (opt) {
        case 'o': co.dir = optarg; break;
        case 'b': co.base = optarg; break;
        case 'M': co.deps_only = 1; break;
        case OPT_DEPFILE: co.depfile = optarg; break;
        case OPT_PYTHON: co.python = 1; break;
        case OPT_DRIVER:
            co.driver = 1;
            co.driver_msg = optarg; /* NULL: the first example */
            break;
        default: break;
        }
    }
    if (rc >= 0)
        return rc;
    if ((rc = cli_operands(&compile_cmd, argc, argv, &specs, &n)) != 0)
        return rc;
    if (n > 1)
        return cli_usage_error(&compile_cmd, "one spec per compile (got '%s' and '%s')",
                               specs[0], specs[1]);
    if (co.base == NULL && strcmp(specs[0], "-") == 0)
        return cli_usage_error(&compile_cmd,
                               "a spec from standard input needs --base NAME for its files");
    return compile_one(specs[0], &co);
}

/* featc check SPEC --data FILE...: the spec, then the files. */
static int check_data(char **operands, int n, const cli_check_opts *o)
{
    static char dash[] = "-";
    static char *stdin_only[] = {dash, NULL};
    if (strcmp(operands[0], "-") == 0)
        return cli_usage_error(&check_cmd, "--data reads the spec from a file, not from "
                                           "standard input");
    if (n > 1)
        return cli_check_data(operands[0], operands + 1, n - 1, o);
    if (isatty(STDIN_FILENO))
        return cli_usage_error(&check_cmd, "--data: no data file (standard input is a terminal)");
    return cli_check_data(operands[0], stdin_only, 1, o);
}

int cmd_check(int argc, char **argv)
{
    compile_opts co;
    cli_check_opts to;
    char **specs;
    int i, opt, rc, n, data = 0, data_only = 0;
    memset(&co, 0, sizeof co);
    memset(&to, 0, sizeof to);
    to.read.compression = FC_COMPRESSION_AUTO;
    to.read.crc_policy = FC_CRC_VERIFY;
    to.max_errors = 100;
    co.check = 1;
    while ((opt = cli_next_option(&check_cmd, argc, argv, &rc)) != 0) {
        int r;
        if (cli_input_option(&check_cmd, opt, optarg, &to.read, NULL, NULL, &r)) {
            if (r != 0)
                return r;
            data_only = 1;
        } else if (opt == OPT_TF) {
            co.tf = 1;
        } else if (opt == OPT_WERROR) {
            co.werror = 1;
        } else if (opt == OPT_DATA) {
            data = 1;
        } else if (opt == OPT_MESSAGE) {
            to.message = optarg;
            data_only = 1;
        } else if (opt == CLI_OPT_JSON) {
            to.json = 1;
            data_only = 1;
        } else if (opt == OPT_MAX_ERRORS) {
            char *end;
            if (*optarg < '0' || *optarg > '9')
                return cli_usage_error(&check_cmd, "bad number '%s' for --max-errors", optarg);
            to.max_errors = strtoull(optarg, &end, 10);
            if (*end != '\0')
                return cli_usage_error(&check_cmd, "bad number '%s' for --max-errors", optarg);
            data_only = 1;
        } else if (opt == 'q') {
            to.progress = PROGRESS_QUIET;
            data_only = 1;
        } else if (opt == CLI_OPT_PROGRESS) {
            to.progress = PROGRESS_FORCE;
            data_only = 1;
        }
    }
    if (rc >= 0)
        return rc;
    if (data && co.tf)
        return cli_usage_error(&check_cmd, "--tf checks specs; it does not go with --data");
    if (!data && data_only)
        return cli_usage_error(&check_cmd, "that option reads data: it goes with --data");
    if (data) {
        if (optind >= argc)
            return cli_usage_error(&check_cmd, "--data needs the SPEC, then the data files");
        return check_data(argv + optind, argc - optind, &to);
    }
    if ((rc = cli_operands(&check_cmd, argc, argv, &specs, &n)) != 0)
        return rc;
    for (i = 0; i < n; i++) {
        int r = compile_one(specs[i], &co);
        if (r > rc)
            rc = r;
    }
    return rc;
}

static const char *const export_usage =
    "usage: featc export [options] --tf [SPEC]\n"
    "       featc export [options] --tfmd [--message NAME] [SPEC]\n"
    "\n"
    "--tf prints the Python that TensorFlow code uses for the spec's schema: for\n"
    "each example NAME a dict NAME_FEATURES of tf.io feature descriptions\n"
    "(FixedLenFeature, VarLenFeature, FixedLenSequenceFeature, SparseFeature,\n"
    "RaggedFeature with its partitions) for tf.io.parse_example, for each\n"
    "sequence_example NAME_CONTEXT_FEATURES and NAME_SEQUENCE_FEATURES for\n"
    "tf.io.parse_sequence_example, and NAME_FEATURE_COLUMNS with the feature\n"
    "columns of hash buckets.\n"
    "--tfmd prints one message as a TensorFlow Metadata Schema (schema.pbtxt, the\n"
    "Schema proto in protobuf's text format) that TFX's components and TFXIO read\n"
    "as the same tensors; what TFMD cannot say is a warning (docs/tfx.md).\n"
    "The output is deterministic, so that a build can generate the C parser and\n"
    "the training input function (or the pipeline's schema) from one spec.\n"
    "\n"
    "options:\n"
    "  --tf                    TensorFlow's Python\n"
    "  --tfmd                  a TensorFlow Metadata schema.pbtxt\n"
    "  --message NAME          the message a schema is written for (--tfmd; needed\n"
    "                          when the spec has several)\n"
    "  -o, --output FILE       write to FILE (through a temporary file renamed\n"
    "                          over it) instead of standard output\n"
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 written (warnings allowed); 1 errors in the spec, or what the\n"
    "form cannot say; 2 a file could not be read or written; 64 usage error.\n";

static const struct option export_long[] = {
    {"tf", no_argument, NULL, OPT_TF},
    {"tfmd", no_argument, NULL, OPT_TFMD},
    {"message", required_argument, NULL, OPT_MESSAGE},
    {"output", required_argument, NULL, 'o'},
    CLI_COMMON_OPTIONS,
    {NULL, 0, NULL, 0}};
static const cli_command export_cmd = {"export", export_usage, "o:h", export_long};

int cmd_export(int argc, char **argv)
{
    char *src, *text = NULL;
    const char *output = NULL, *message = NULL;
    int opt, rc, tf = 0, tfmd = 0;
    size_t len = 0, text_len = 0;
    featc_options o = FEATC_OPTIONS_INIT;
    while ((opt = cli_next_option(&export_cmd, argc, argv, &rc)) != 0) {
        if (opt == OPT_TF)
            tf = 1;
        else if (opt == OPT_TFMD)
            tfmd = 1;
        else if (opt == OPT_MESSAGE)
            message = optarg;
        else if (opt == 'o')
            output = optarg;
    }
    if (rc >= 0)
        return rc;
    if (tf == tfmd)
        return cli_usage_error(&export_cmd, tf ? "one form at a time: --tf or --tfmd"
                                               : "say which form: --tf or --tfmd");
    if (message != NULL && !tfmd)
        return cli_usage_error(&export_cmd, "--message chooses the message of --tfmd");
    if ((src = cli_read_operand(&export_cmd, argc, argv, "spec", &len, &o.spec_name, &rc)) == NULL)
        return rc;
    o.diag = cli_print_diagnostic;
    rc = tf ? featc_export_tf(src, len, &o, &text, &text_len)
            : featc_export_tfmd(src, len, &o, message, &text, &text_len);
    free(src);
    if (rc != 0)
        return EXIT_RECORD_ERR;
    rc = cli_write_output(output, text, text_len);
    free(text);
    return rc;
}
