/* The record tools: featc cat, count, verify (records.c) and infer
 * (infer.c).  They read TFRecord files through the runtime (libfeatc's
 * hosted input layer and the protobuf-c fallback decoder); infer checks the
 * spec it prints through the compiler's public API, include/featc/featc.h. */
#ifndef FEATC_TOOLS_H
#define FEATC_TOOLS_H

#include <featc/fc_fallback.h>
#include <featc/fc_input.h>

#include "cli.h"

int cmd_cat(int argc, char **argv);
int cmd_count(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_infer(int argc, char **argv);

/* The codes of the record tools' long options (-c is --compression). */
enum {
    TOOLS_OPT_MAX_RECORD = CLI_OPT_FIRST,
    TOOLS_OPT_TYPE,
    TOOLS_OPT_CRC,
    TOOLS_OPT_JSON,
    TOOLS_OPT_LENIENT,
    TOOLS_OPT_EXAMPLES,
    TOOLS_OPT_PACKAGE,
    TOOLS_OPT_NAME
};
/* The input options every command that reads records takes. */
#define TOOLS_INPUT_OPTIONS                                      \
    {"compression", required_argument, NULL, 'c'},               \
    {"max-record-size", required_argument, NULL, TOOLS_OPT_MAX_RECORD}
#define TOOLS_TYPE_OPTION {"type", required_argument, NULL, TOOLS_OPT_TYPE}

/* Applies option opt with value val when it is an input option
 * (--compression, --max-record-size, and --type when type is not NULL):
 * returns 1 with *rc 0, or the usage error already printed; else 0. */
int tools_input_option(const cli_command *c, int opt, const char *val, fc_input_options *read,
                       fc_payload_kind *type, int *rc);

/* Decodes one payload with the fallback decoder into memory that grows as
 * needed (free d->mem when done). */
typedef struct tools_decoder {
    unsigned char *mem;
    size_t size;
    fc_arena arena;
} tools_decoder;
fc_status tools_decode(tools_decoder *d, const fc_record *rec, fc_payload_kind type, int flags,
                       fc_fallback *fb, fc_error *err);

#endif /* FEATC_TOOLS_H */
