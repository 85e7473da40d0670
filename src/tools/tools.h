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

/* The input options of every command that reads records: --compression,
 * --max-record-size and, when type is not NULL, --type.  Returns 1 when arg
 * is one of them (*rc: 0, or the usage error already printed), else 0. */
int tools_input_option(const char *arg, const char *usage, fc_input_options *read,
                       fc_payload_kind *type, int *rc);

/* What every record tool's argument loop does first with argv[*i]: -h and
 * --help print usage (returns -1); "-" and non-options are files, "--" makes
 * every later argument one (*i moves to the last), both appended to
 * files[*nfiles] (returns 1); anything else is an option for the caller
 * (returns 0). */
int tools_file_arg(int argc, char **argv, int *i, const char *usage, char **files, int *nfiles);

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
