/* featc: command-line entry point.  Only argument dispatch lives here: the
 * compiler's commands are in compile.c (over include/featc/featc.h), the
 * record tools in src/tools/. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "tools.h"

static const char *const usage =
    "usage: featc COMMAND [options] [FILE...]\n"
    "\n"
    "featc compiles TensorFlow feature specs into C parsers, and reads TFRecord\n"
    "files.\n"
    "\n"
    "spec compiler:\n"
    "  compile SPEC     generate C (NAME.h, NAME.c; --driver adds a JSON main)\n"
    "  check SPEC...    report problems in specs without generating code\n"
    "  export --tf SPEC print the spec as TensorFlow's feature descriptions\n"
    "  infer FILE...    print a spec that describes TFRecord files\n"
    "\n"
    "record tools:\n"
    "  cat FILE...      print records as tf.train.Example / SequenceExample\n"
    "                   (protobuf text format, or --json)\n"
    "  count FILE...    count records (verifying CRCs)\n"
    "  verify FILE...   check framing, CRCs and compressed streams\n"
    "  index FILE...    write (or --check) FILE.idx, the record offsets\n"
    "\n"
    "  version          print the version\n"
    "  help             this text\n"
    "\n"
    "`featc COMMAND --help` describes a command; every command also takes\n"
    "--version.  A FILE of - is standard input, which is also read when no FILE\n"
    "is given and it is not a terminal.  Compression (ZLIB, GZIP) is detected\n"
    "from the first bytes unless --compression is given.  `man featc` has the\n"
    "whole reference.\n";

int main(int argc, char **argv)
{
    const char *cmd;
    if (argc < 2)
        return cli_usage_error(NULL, "no command given");
    cmd = argv[1];
    if (strcmp(cmd, "compile") == 0)
        return cmd_compile(argc - 1, argv + 1);
    if (strcmp(cmd, "check") == 0)
        return cmd_check(argc - 1, argv + 1);
    if (strcmp(cmd, "export") == 0)
        return cmd_export(argc - 1, argv + 1);
    if (strcmp(cmd, "infer") == 0)
        return cmd_infer(argc - 1, argv + 1);
    if (strcmp(cmd, "cat") == 0)
        return cmd_cat(argc - 1, argv + 1);
    if (strcmp(cmd, "count") == 0)
        return cmd_count(argc - 1, argv + 1);
    if (strcmp(cmd, "verify") == 0)
        return cmd_verify(argc - 1, argv + 1);
    if (strcmp(cmd, "index") == 0)
        return cmd_index(argc - 1, argv + 1);
    if (strcmp(cmd, "stats") == 0)
        return cmd_stats(argc - 1, argv + 1);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0)
        return cli_print_version();
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(usage, stdout);
        if (fflush(stdout) != 0 || ferror(stdout))
            return cli_fail(EXIT_DATA_ERR, "error writing standard output");
        return EXIT_OK;
    }
    return cli_usage_error(NULL, "unknown command '%s'", cmd);
}
