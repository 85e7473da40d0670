/* featc: command-line entry point.  One table names every command: the
 * dispatch reads it, and so does `featc --help`, so a command cannot be
 * reachable and missing from the list (tests/cli/test_cli.sh compares the
 * list with the man page's SYNOPSIS).  The commands are in commands/, the
 * helpers they share in base/. */
#include <stdio.h>
#include <string.h>

#include "base/cli.h"
#include "base/heap.h"
#include "commands/commands.h"

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv); /* NULL: handled here (version, help) */
    const char *operands;              /* as --help shows them after the name */
    const char *summary;               /* one or two lines, the second indented */
    int group;
} command;

enum { GROUP_SPEC, GROUP_RECORDS, GROUP_OTHER, GROUPS };

static const char *const group_title[GROUPS] = {"spec compiler:", "record tools:", NULL};

static const command commands[] = {
    {"compile", cmd_compile, "SPEC", "generate C (NAME.h, NAME.c; --driver adds a JSON main)",
     GROUP_SPEC},
    {"check", cmd_check, "SPEC...", "report problems in specs without generating code;\n"
                                    "--data FILE... reads records through the spec",
     GROUP_SPEC},
    {"export", cmd_export, "--tf|--tfmd SPEC", "print the spec as TensorFlow's feature descriptions,\n"
                                              "or as a TensorFlow Metadata schema.pbtxt",
     GROUP_SPEC},
    {"breaking", cmd_breaking, "OLD NEW", "list the changes from spec OLD to NEW that break\n"
                                          "records written under OLD (git:REV:PATH too)",
     GROUP_SPEC},
    {"import", cmd_import, "--tfmd SCHEMA", "print the spec of a TensorFlow Metadata schema.pbtxt",
     GROUP_SPEC},
    {"infer", cmd_infer, "FILE...", "print a spec that describes TFRecord files", GROUP_SPEC},
    {"cat", cmd_cat, "FILE...", "print records as tf.train.Example / SequenceExample\n"
                                "(protobuf text format, or --json)",
     GROUP_RECORDS},
    {"count", cmd_count, "FILE...", "count records (verifying CRCs)", GROUP_RECORDS},
    {"verify", cmd_verify, "FILE...", "check framing, CRCs and compressed streams", GROUP_RECORDS},
    {"index", cmd_index, "FILE...", "write (or --check) FILE.idx, the record offsets",
     GROUP_RECORDS},
    {"convert", cmd_convert, "FILE... -o OUT", "TFRecord files to Arrow IPC, and Arrow IPC "
                                                "back\n"
                                                "to TFRecords through a spec",
     GROUP_RECORDS},
    {"validate", cmd_validate, "--schema S FILE...", "check records against a TFMD schema (or a spec):\n"
                                                    "TFDV's anomalies",
     GROUP_RECORDS},
    {"stats", cmd_stats, "FILE...", "summarize the features of records: a table, --json,\n"
                                    "or an HTML report (--html)",
     GROUP_RECORDS},
    {"version", NULL, "", "print the version", GROUP_OTHER},
    {"help", NULL, "", "this text", GROUP_OTHER},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* The name and operands in a column 19 wide, then the summary (its later
 * lines under its first). */
static void print_command(const command *c)
{
    const char *s = c->summary, *nl;
    int w = printf("  %s%s%s", c->name, c->operands[0] != '\0' ? " " : "", c->operands);
    for (;;) {
        nl = strchr(s, '\n');
        printf("%*s%.*s\n", w < 19 ? 19 - w : 1, "", nl != NULL ? (int)(nl - s) : (int)strlen(s), s);
        if (nl == NULL)
            break;
        s = nl + 1;
        w = 0;
    }
}

static int print_usage(void)
{
    int g;
    size_t i;
    fputs("usage: featc COMMAND [options] [FILE...]\n"
          "\n"
          "featc compiles TensorFlow feature specs into C parsers, and reads TFRecord\n"
          "files.\n",
          stdout);
    for (g = 0; g < GROUPS; g++) {
        putchar('\n');
        if (group_title[g] != NULL)
            puts(group_title[g]);
        for (i = 0; i < NCOMMANDS; i++)
            if (commands[i].group == g)
                print_command(&commands[i]);
    }
    fputs("\n"
          "`featc COMMAND --help` describes a command; every command also takes\n"
          "--version.  A FILE of - is standard input, which is also read when no FILE\n"
          "is given and it is not a terminal.  Compression (ZLIB, GZIP) is detected\n"
          "from the first bytes unless --compression is given.  `man featc` has the\n"
          "whole reference.\n",
          stdout);
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_fail(EXIT_DATA_ERR, "error writing standard output");
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    const char *name;
    size_t i;
    cli_heap_huge();
    if (argc < 2)
        return cli_usage_error(NULL, "no command given");
    name = argv[1];
    if (strcmp(name, "--version") == 0)
        name = "version";
    else if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        name = "help";
    for (i = 0; i < NCOMMANDS; i++)
        if (strcmp(name, commands[i].name) == 0) {
            if (commands[i].run != NULL)
                return commands[i].run(argc - 1, argv + 1);
            /* version and help take no operand; --help says what they do */
            if (argc > 2 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0)) {
                if (strcmp(name, "help") == 0)
                    return print_usage();
                printf("usage: featc version (or featc --version)\n\n"
                       "Prints featc's version and the kernels this build runs: CRC-32C,\n"
                       "inflate (ISA-L or zlib) and varint decoding, and the codecs it\n"
                       "writes Parquet with.  Exit status 0.\n");
                return EXIT_OK;
            }
            if (argc > 2)
                return cli_usage_error(NULL, "'%s' takes no operand or option, not '%s'", name,
                                       argv[2]);
            return strcmp(name, "version") == 0 ? cli_print_version() : print_usage();
        }
    return cli_usage_error(NULL, "unknown command '%s'", name);
}
