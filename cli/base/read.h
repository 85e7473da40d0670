/* Reading records from the command line: the input options every record
 * command shares (compression, CRC policy, sizes, payload type), the options
 * that read a part of each file (--split, --range, --records, --index,
 * --sync), -j, and decoding a payload with the fallback decoder. */
#ifndef FEATC_CLI_READ_H
#define FEATC_CLI_READ_H

#include <featc/fc_fallback.h>
#include <featc/fc_input.h>

#include "base/cli.h"

/* The codes of the record tools' long options (-c is --compression). */
enum {
    CLI_OPT_MAX_RECORD = CLI_OPT_FIRST,
    CLI_OPT_TYPE,
    CLI_OPT_CRC,
    CLI_OPT_JSON,
    CLI_OPT_LENIENT,
    CLI_OPT_EXAMPLES,
    CLI_OPT_PACKAGE,
    CLI_OPT_NAME,
    CLI_OPT_MAX_MEMORY,
    CLI_OPT_SPLIT,
    CLI_OPT_RANGE,
    CLI_OPT_RECORDS,
    CLI_OPT_INDEX,
    CLI_OPT_SYNC,
    CLI_OPT_CHECK,
    CLI_OPT_JOBS,
    CLI_OPT_LIMIT,
    CLI_OPT_SKIP,
    CLI_OPT_MAX_BYTES,
    CLI_OPT_RAW,
    CLI_OPT_UTF8,
    CLI_OPT_JSON_BYTES,
    CLI_OPT_PROGRESS
};
/* -j, --jobs=N: read with N threads (count, verify, index). */
#define CLI_JOBS_OPTION {"jobs", required_argument, NULL, 'j'}
#define CLI_JOBS_HELP                                                          \
    "  -j, --jobs=N            read each file with N threads, in splits (whole\n"   \
    "                          files for ZLIB, and GZIP without FILE.members);\n" \
    "                          0: one per CPU\n"
/* Parses the value of -j: 1..1024, or 0 for one per CPU; 0 on success. */
int cli_parse_jobs(const char *s, unsigned *jobs);
/* The input options every command that reads records takes. */
#define CLI_INPUT_OPTIONS                                      \
    {"compression", required_argument, NULL, 'c'},               \
    {"max-record-size", required_argument, NULL, CLI_OPT_MAX_RECORD}
#define CLI_TYPE_OPTION {"type", required_argument, NULL, CLI_OPT_TYPE}
/* The options that read a part of each file (cat, count, verify). */
#define CLI_PART_OPTIONS                                       \
    {"split", required_argument, NULL, CLI_OPT_SPLIT},         \
    {"range", required_argument, NULL, CLI_OPT_RANGE},         \
    {"records", required_argument, NULL, CLI_OPT_RECORDS},     \
    {"index", required_argument, NULL, CLI_OPT_INDEX},         \
    {"sync", required_argument, NULL, CLI_OPT_SYNC}
/* The help text of CLI_PART_OPTIONS. */
#define CLI_PART_HELP                                                          \
    "  --split=I/N             only split I of N equal byte ranges of each file\n" \
    "                          (I from 0): the records whose header starts in it\n" \
    "  --range=A:B             only the records whose header starts in bytes\n"    \
    "                          [A, B) (K/M/G suffixes; A or B may be left out)\n"   \
    "  --records=A:B           only records A to B-1 (from 0), by the index\n"     \
    "  --index=IDX             the index file (featc index) that places\n"         \
    "                          --split, --range and --records; --records uses\n"   \
    "                          FILE.idx when not given\n"                           \
    "  --sync=walk|checksum    without an index, find the first record of a\n"    \
    "                          range by walking the headers from the start\n"     \
    "                          (exact; the default) or by the CRCs from the\n"     \
    "                          range's start (reads nothing before it)\n"
/* Applies a part option (--split, --range, --records, --index, --sync):
 * 1 when opt is one (*rc 0, or the usage error printed), else 0. */
int cli_part_option(const cli_command *c, int opt, const char *val, fc_input_options *read,
                    int *sync_given, int *rc);
/* The checks once every option is read: 0, or the usage error printed. */
int cli_part_done(const cli_command *c, const fc_input_options *read, int sync_given);
/* The commands that decode payloads (cat, verify --examples, infer). */
#define CLI_MEMORY_OPTION {"max-memory", required_argument, NULL, CLI_OPT_MAX_MEMORY}
#define CLI_DEFAULT_MAX_MEMORY ((size_t)1 << 30)

/* Applies option opt with value val when it is an input option
 * (--compression, --crc, --max-record-size, --type when type is not NULL,
 * --max-memory when max_memory is not NULL): returns 1 with *rc 0, or the
 * usage error already printed; else 0. */
int cli_input_option(const cli_command *c, int opt, const char *val, fc_input_options *read,
                     fc_payload_kind *type, size_t *max_memory, int *rc);

/* Decodes one payload with the fallback decoder into memory that grows as
 * needed, up to limit bytes (0: CLI_DEFAULT_MAX_MEMORY); free d->mem when
 * done.  protobuf-c's structures take up to about 28 bytes per byte of
 * payload (an empty map entry: 2 bytes on the wire, a 48-byte struct and
 * its pointer), so the memory is bounded by limit, not by the record: a
 * record that needs more is an FC_ERR_NO_MEMORY error naming --max-memory,
 * and the tools go on with the next record. */
typedef struct cli_decoder {
    unsigned char *mem;
    size_t size;
    size_t limit;
    fc_arena arena;
} cli_decoder;
fc_status cli_decode(cli_decoder *d, const fc_record *rec, fc_payload_kind type, int flags,
                     fc_fallback *fb, fc_error *err);

#endif /* FEATC_CLI_READ_H */
