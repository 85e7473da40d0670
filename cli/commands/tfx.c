/* featc import --tfmd: a TensorFlow Metadata schema.pbtxt as a featc spec
 * (the mapping is the compiler library's featc_import_tfmd). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/featc.h>

#include "base/cli.h"
#include "commands.h"

static const char *const import_usage =
    "usage: featc import [options] --tfmd SCHEMA\n"
    "\n"
    "Writes the featc spec of a TensorFlow Metadata schema (schema.pbtxt, the\n"
    "Schema proto in protobuf's text format, as TFDV and TFX's SchemaGen write it),\n"
    "read as TFXIO reads it: a feature with a fixed shape is a FixedLen feature,\n"
    "one without is VarLen (bounded by its value_count.max), a sparse_feature is a\n"
    "SparseFeature, the default tensor representations give defaults, ragged and\n"
    "sparse tensors, and a STRUCT feature ##SEQUENCE## makes a sequence_example.\n"
    "Presence, value counts and domains are kept as comments.  Fields TFMD does\n"
    "not have are warnings; the spec written is checked as featc check would.\n"
    "\n"
    "options:\n"
    "  --tfmd                  the input is a TFMD schema (the only form so far)\n"
    "  --environment ENV       only the features in environment ENV (TFMD's rule:\n"
    "                          in in_environment or default_environment, and\n"
    "                          not in not_in_environment)\n"
    "  --package NAME          the spec's package (default: the file's name)\n"
    "  --message NAME          the message's name (default: record)\n"
    "  --max-values N          the bound on values where value_count.max is not\n"
    "                          set (default 256; a warning names each feature)\n"
    "  --max-frames N          the bound on a sequence's frames (default 256)\n"
    "  -o, --output FILE       write to FILE (through a temporary file renamed\n"
    "                          over it) instead of standard output\n"
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 written (warnings allowed); 1 the schema cannot be read as\n"
    "a spec; 2 a file could not be read or written; 64 usage error.\n";

enum { OPT_TFMD = CLI_OPT_FIRST + 96, OPT_ENV, OPT_PACKAGE, OPT_MESSAGE, OPT_MAXV, OPT_MAXF };

static const struct option import_long[] = {
    {"tfmd", no_argument, NULL, OPT_TFMD},
    {"environment", required_argument, NULL, OPT_ENV},
    {"package", required_argument, NULL, OPT_PACKAGE},
    {"message", required_argument, NULL, OPT_MESSAGE},
    {"max-values", required_argument, NULL, OPT_MAXV},
    {"max-frames", required_argument, NULL, OPT_MAXF},
    {"output", required_argument, NULL, 'o'},
    CLI_COMMON_OPTIONS,
    {NULL, 0, NULL, 0}};
static const cli_command import_cmd = {"import", import_usage, "o:h", import_long};

/* A bound in [1, 2^24] (the compiler's own limit on a shape). */
static int bound(const char *s, size_t *out)
{
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || v == 0 || v > (1u << 24))
        return -1;
    *out = (size_t)v;
    return 0;
}

int cmd_import(int argc, char **argv)
{
    char *src, *text = NULL;
    const char *output = NULL;
    int opt, rc, tfmd = 0;
    size_t len = 0, text_len = 0;
    featc_options o = FEATC_OPTIONS_INIT;
    featc_import_options io;
    memset(&io, 0, sizeof io);
    while ((opt = cli_next_option(&import_cmd, argc, argv, &rc)) != 0) {
        if (opt == OPT_TFMD)
            tfmd = 1;
        else if (opt == OPT_ENV)
            io.environment = optarg;
        else if (opt == OPT_PACKAGE)
            io.package = optarg;
        else if (opt == OPT_MESSAGE)
            io.message = optarg;
        else if ((opt == OPT_MAXV && bound(optarg, &io.max_values) != 0) ||
                 (opt == OPT_MAXF && bound(optarg, &io.max_frames) != 0))
            return cli_usage_error(&import_cmd, "%s takes a number from 1 to 16777216, not '%s'",
                                   opt == OPT_MAXV ? "--max-values" : "--max-frames", optarg);
        else if (opt == 'o')
            output = optarg;
    }
    if (rc >= 0)
        return rc;
    if (!tfmd)
        return cli_usage_error(&import_cmd, "say which form: --tfmd");
    if ((io.package != NULL && !featc_c_name_ok(io.package)) ||
        (io.message != NULL && !featc_c_name_ok(io.message)))
        return cli_usage_error(&import_cmd, "'%s' is not a name featc takes (a C identifier, "
                               "not a keyword, no leading '_' or \"__\")",
                               io.package != NULL && !featc_c_name_ok(io.package) ? io.package
                                                                                 : io.message);
    if ((src = cli_read_operand(&import_cmd, argc, argv, "schema", &len, &o.spec_name, &rc)) == NULL)
        return rc;
    o.diag = cli_print_diagnostic;
    rc = featc_import_tfmd(src, len, &o, &io, &text, &text_len);
    free(src);
    if (rc != 0)
        return EXIT_RECORD_ERR;
    rc = cli_write_output(output, text, text_len);
    free(text);
    return rc;
}
