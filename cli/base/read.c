/* Reading records from the command line (base/read.h): the input and part
 * options, -j, and the fallback decoder in memory that grows to a limit. */
#include "base/read.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cli_input_option(const cli_command *c, int opt, const char *val, fc_input_options *read,
                     fc_payload_kind *type, size_t *max_memory, int *rc)
{
    *rc = 0;
    if (opt == 'c') {
        if (fc_input_parse_compression(val, &read->compression) != 0)
            *rc = cli_usage_error(c, "unknown compression '%s' (auto, none, zlib, gzip)", val);
    } else if (opt == CLI_OPT_CRC) {
        if (fc_input_parse_crc(val, &read->crc_policy) != 0)
            *rc = cli_usage_error(c, "unknown CRC policy '%s' (verify, skip, none)", val);
    } else if (opt == CLI_OPT_MAX_RECORD) {
        if (fc_input_parse_size(val, &read->max_record_size) != 0 || read->max_record_size == 0)
            *rc = cli_usage_error(c, "bad size '%s' (a number, with K, M or G)", val);
    } else if (opt == CLI_OPT_MAX_MEMORY && max_memory != NULL) {
        if (fc_input_parse_size(val, max_memory) != 0 || *max_memory < 65536u)
            *rc = cli_usage_error(c, "bad size '%s' (a number, with K, M or G; at least 64K)", val);
    } else if (opt == CLI_OPT_TYPE && type != NULL) {
        if (strcmp(val, "auto") == 0)
            *type = FC_PAYLOAD_AUTO;
        else if (strcmp(val, "example") == 0)
            *type = FC_PAYLOAD_EXAMPLE;
        else if (strcmp(val, "sequence") == 0)
            *type = FC_PAYLOAD_SEQUENCE_EXAMPLE;
        else
            *rc = cli_usage_error(c, "unknown type '%s' (auto, example, sequence)", val);
    } else {
        return 0;
    }
    return 1;
}

int cli_part_option(const cli_command *c, int opt, const char *val, fc_input_options *read,
                    int *sync_given, int *rc)
{
    fc_input_part part = opt == CLI_OPT_SPLIT    ? FC_PART_SPLIT
                         : opt == CLI_OPT_RANGE  ? FC_PART_RANGE
                         : opt == CLI_OPT_RECORDS ? FC_PART_RECORDS
                                                   : FC_PART_ALL;
    *rc = 0;
    if (part != FC_PART_ALL) {
        int bad;
        if (read->part != FC_PART_ALL && read->part != part) {
            *rc = cli_usage_error(c, "--split, --range and --records exclude each other");
            return 1;
        }
        read->part = part;
        bad = part == FC_PART_SPLIT
                  ? fc_input_parse_split(val, &read->part_a, &read->part_b)
                  : fc_input_parse_span(val, part == FC_PART_RANGE, &read->part_a, &read->part_b);
        if (bad != 0)
            *rc = cli_usage_error(c, part == FC_PART_SPLIT
                                         ? "bad split '%s' (I/N with 0 <= I < N)"
                                         : part == FC_PART_RANGE
                                               ? "bad range '%s' (A:B, byte offsets A <= B, with "
                                                 "K, M or G)"
                                               : "bad records '%s' (A:B, record numbers A <= B)",
                                  val);
    } else if (opt == CLI_OPT_INDEX) {
        read->index_path = val;
    } else if (opt == CLI_OPT_SYNC) {
        *sync_given = 1;
        if (fc_input_parse_sync(val, &read->sync) != 0)
            *rc = cli_usage_error(c, "unknown sync method '%s' (walk, checksum)", val);
    } else {
        return 0;
    }
    return 1;
}

int cli_part_done(const cli_command *c, const fc_input_options *read, int sync_given)
{
    if ((read->index_path != NULL || sync_given) && read->part == FC_PART_ALL)
        return cli_usage_error(c, "--%s goes with --split, --range or --records",
                               read->index_path != NULL ? "index" : "sync");
    if (sync_given && read->index_path != NULL)
        return cli_usage_error(c, "--sync and --index exclude each other (an index places "
                                  "the read exactly)");
    if (sync_given && read->part == FC_PART_RECORDS)
        return cli_usage_error(c, "--sync goes with --split or --range (--records uses the "
                                  "index)");
    if (read->sync == FC_SYNC_CHECKSUM && read->crc_policy == FC_CRC_NONE)
        return cli_usage_error(c, "--sync=checksum finds records by their CRCs; it cannot "
                                  "go with --crc=none");
    return 0;
}

fc_status cli_decode(cli_decoder *d, const fc_record *rec, fc_payload_kind type, int flags,
                     fc_fallback *fb, fc_error *err)
{
    size_t limit = d->limit != 0 ? d->limit : CLI_DEFAULT_MAX_MEMORY;
    /* most payloads need less than 8 bytes per byte; from there, doubling */
    size_t want = rec->length > (limit - 65536u) / 8u ? limit : rec->length * 8u + 65536u;
    if (limit <= 65536u)
        want = limit;
    for (;;) {
        fc_status s;
        if (d->size < want) {
            /* nothing in the old block is needed: no realloc copy, and the
             * old block is gone before the new one is touched */
            free(d->mem);
            d->size = 0;
            d->mem = (unsigned char *)malloc(want);
            if (d->mem == NULL) {
                fc_msg msg = fc_error_begin(err, FC_ERR_NO_MEMORY, rec->index, rec->offset);
                fc_msg_str(&msg, "out of memory decoding the record (");
                fc_msg_u64(&msg, want);
                fc_msg_str(&msg, " bytes)");
                return FC_ERR_NO_MEMORY;
            }
            d->size = want;
        }
        fc_arena_init(&d->arena, d->mem, want);
        fc_error_clear(err); /* not the last attempt's "arena exhausted" */
        /* the layout real writers produce, without protobuf-c (the same
         * result: tests/unit/test_fallback.c); the rest through it */
        if (flags == 0 &&
            fc_fallback_decode_canonical(rec->data, rec->length, type, &d->arena, fb) == FC_OK)
            return FC_OK;
        s = fc_fallback_decode(rec->data, rec->length, type, flags, &d->arena, fb, err);
        if (s != FC_ERR_NO_MEMORY)
            return s;
        if (want == limit) {
            fc_msg msg = fc_error_begin(err, FC_ERR_NO_MEMORY, rec->index, rec->offset);
            fc_msg_str(&msg, "decoding the record (");
            fc_msg_u64(&msg, rec->length);
            fc_msg_str(&msg, " bytes) needs more than --max-memory (");
            fc_msg_u64(&msg, limit);
            fc_msg_str(&msg, " bytes)");
            return s;
        }
        want = want > limit / 2 ? limit : want * 2;
    }
}

int cli_parse_jobs(const char *s, unsigned *jobs)
{
    char *end;
    unsigned long v;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoul(s, &end, 10);
    if (*end != '\0' || errno != 0 || v > 1024)
        return -1;
    if (v == 0) { /* one per CPU, as Python's threads=0 */
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        v = cpus < 1 ? 1 : cpus > 1024 ? 1024 : (unsigned long)cpus;
    }
    *jobs = (unsigned)v;
    return 0;
}
