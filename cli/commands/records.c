/* featc cat | count | verify: the record tools.
 *
 * Exit codes (docs/record-tools.md, "Exit codes"):
 *   0  every file read completely and, for cat, every record is an Example
 *      or SequenceExample
 *   1  cat: some record is not an Example or SequenceExample (reported by
 *      index); verify --examples: likewise
 *   2  a file could not be opened or read, or its framing is damaged
 *      (corrupted or truncated record, bad compressed stream)
 *   64 usage error
 */
#include "commands.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <featc/fc_fallback.h>

#include <featc/fc_input.h>
#include <featc/fc_pool.h>
#include "base/progress.h"
#include "print.h"

enum { MODE_CAT, MODE_COUNT, MODE_VERIFY };
enum { RAW_NONE, RAW_TEXT, RAW_HEX, RAW_BASE64 };

typedef struct record_opts {
    fc_input_options read;
    unsigned jobs;  /* -j: 0 or 1 reads in this thread */
    int json;
    int examples;   /* verify: also check payloads */
    int flags;      /* FC_FALLBACK_LENIENT */
    fc_payload_kind type;
    size_t max_memory; /* cli_decoder's limit */
    /* cat */
    unsigned long long limit, skip; /* --limit (with has_limit), --skip */
    int has_limit;
    int raw;           /* RAW_*: payloads printed without decoding */
    print_opts print;  /* --max-bytes, --utf8, --json-bytes */
    int progress;      /* PROGRESS_*: -q, --progress */
    int nfiles;
    char **files;
} record_opts;

static const char *const cat_usage =
    "usage: featc cat [options] [FILE...]\n"
    "\n"
    "Prints every record of TFRecord files as a tf.train.Example or\n"
    "SequenceExample, in protobuf text format (as Python's print(example)), or\n"
    "as one JSON object per line with --json.  A record that is not an Example\n"
    "or SequenceExample is reported by index and the rest are still printed.\n"
    "FILE may be - for standard input (read when no FILE is given and it is not\n"
    "a terminal).\n"
    "\n"
    "options:\n"
    "  --json                  one JSON object per record\n"
    "  --limit=N               print N records at most, then stop reading\n"
    "  --skip=N                leave out the first N records (framed and\n"
    "                          checked, not decoded); both count over all\n"
    "                          the files, in order\n"
    "  --max-bytes=N           show a bytes value longer than N bytes (K/M/G\n"
    "                          suffixes) as its first N bytes and its length\n"
    "  --json-bytes=text|base64|latin1\n"
    "                          JSON's bytes values: UTF-8 text as text, others\n"
    "                          as {\"base64\":...} (default); all as base64; or\n"
    "                          each byte as U+00XX (the JSON driver's form)\n"
    "  --utf8                  show UTF-8 bytes values as text (text format,\n"
    "                          and --json-bytes=latin1)\n"
    "  --raw[=text|hex|base64] print each record's bytes without decoding\n"
    "                          them: as an escaped string (the default), in\n"
    "                          hexadecimal or in base64; for records that are\n"
    "                          not Examples\n"
    "  --type=auto|example|sequence\n"
    "                          how to read payloads (default auto: Example,\n"
    "                          else SequenceExample)\n"
    "  --lenient               read payloads with protobuf's merge rules only;\n"
    "                          by default a payload must also have the shape\n"
    "                          real writers produce (each top-level field once,\n"
    "                          map entries with one key and one value), which\n"
    "                          tells look-alike messages apart\n"
    "  -c, --compression=auto|none|zlib|gzip   (default auto: detected from the\n"
    "                          first bytes)\n"
    "  --crc=verify|skip|none  verify both CRCs (default), skip records whose\n"
    "                          data CRC fails, or check nothing\n"
    "  --max-record-size=N     largest record accepted, from any input (K/M/G\n"
    "                          suffixes; default 1G); bounds the memory used\n"
    "  --max-memory=N          most memory for decoding one record (default 1G;\n"
    "                          a record that needs more is reported, the rest\n"
    "                          are still printed)\n"
    PROGRESS_HELP
    CLI_PART_HELP
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 all records printed; 1 some record is not an Example or\n"
    "SequenceExample; 2 a file is unreadable or damaged; 64 usage error.\n";

static const char *const count_usage =
    "usage: featc count [options] [FILE...]\n"
    "\n"
    "Prints the number of records of each file (\"N FILE\"), and a total when\n"
    "given several files.  Both CRCs of every record are verified unless\n"
    "--crc says otherwise.  A file that fails shows the records read before\n"
    "the failure (\"N FILE (failed after N records)\"), and the total counts\n"
    "them and says how many files failed.\n"
    "\n"
    "options:\n"
    "  -c, --compression=auto|none|zlib|gzip   (default auto)\n"
    "  --crc=verify|skip|none  (default verify; with skip, the count excludes\n"
    "                          skipped records and they are reported)\n"
    "  --max-record-size=N     (default 1G)\n"
    CLI_JOBS_HELP
    PROGRESS_HELP
    CLI_PART_HELP
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 all files counted; 2 a file is unreadable or damaged;\n"
    "64 usage error.\n";

static const char *const verify_usage =
    "usage: featc verify [options] [FILE...]\n"
    "\n"
    "Checks the framing and both CRCs of every record, and the compressed\n"
    "stream to its end.  Prints one line per file:\n"
    "  FILE: OK: N records, COMPRESSION, B bytes of records\n"
    "  FILE: FAILED: <what, with the record index and byte offset>\n"
    "\n"
    "options:\n"
    "  --examples              also check that every payload is an Example or\n"
    "                          SequenceExample\n"
    "  --lenient               with --examples: protobuf's merge rules only\n"
    "                          (see featc cat --help)\n"
    "  -c, --compression=auto|none|zlib|gzip   (default auto)\n"
    "  --max-record-size=N     (default 1G)\n"
    "  --max-memory=N          with --examples: most memory for decoding one\n"
    "                          record (default 1G)\n"
    CLI_JOBS_HELP
    PROGRESS_HELP
    CLI_PART_HELP
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 all files intact; 1 (with --examples) some payload is not\n"
    "an Example or SequenceExample; 2 a file is unreadable or damaged; 64 usage\n"
    "error.\n";

static const struct option cat_long[] = {
    {"json", no_argument, NULL, CLI_OPT_JSON},
    {"limit", required_argument, NULL, CLI_OPT_LIMIT},
    {"skip", required_argument, NULL, CLI_OPT_SKIP},
    {"max-bytes", required_argument, NULL, CLI_OPT_MAX_BYTES},
    {"utf8", no_argument, NULL, CLI_OPT_UTF8},
    {"json-bytes", required_argument, NULL, CLI_OPT_JSON_BYTES},
    {"raw", optional_argument, NULL, CLI_OPT_RAW}, PROGRESS_OPTIONS,
    {"lenient", no_argument, NULL, CLI_OPT_LENIENT},
    {"crc", required_argument, NULL, CLI_OPT_CRC},
    CLI_TYPE_OPTION, CLI_MEMORY_OPTION, CLI_INPUT_OPTIONS, CLI_PART_OPTIONS,
    CLI_COMMON_OPTIONS, {NULL, 0, NULL, 0}};
static const struct option count_long[] = {
    {"crc", required_argument, NULL, CLI_OPT_CRC}, CLI_JOBS_OPTION, PROGRESS_OPTIONS,
    CLI_INPUT_OPTIONS, CLI_PART_OPTIONS, CLI_COMMON_OPTIONS, {NULL, 0, NULL, 0}};
static const struct option verify_long[] = {
    {"examples", no_argument, NULL, CLI_OPT_EXAMPLES},
    {"lenient", no_argument, NULL, CLI_OPT_LENIENT}, CLI_JOBS_OPTION, PROGRESS_OPTIONS,
    CLI_MEMORY_OPTION, CLI_INPUT_OPTIONS, CLI_PART_OPTIONS, CLI_COMMON_OPTIONS,
    {NULL, 0, NULL, 0}};

static const cli_command record_cmds[] = {
    {"cat", cat_usage, "c:qh", cat_long},
    {"count", count_usage, "c:j:qh", count_long},
    {"verify", verify_usage, "c:j:qh", verify_long}};

/* A count of records: digits only, 0 on success. */
static int parse_count(const char *s, unsigned long long *out)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    *out = strtoull(s, &end, 10);
    return *end != '\0' || errno != 0 ? -1 : 0;
}

/* Returns 0 to go on, else the exit status (help and version: 0 after
 * *done is set). */
static int parse_record_opts(int argc, char **argv, int mode, record_opts *o, int *done)
{
    const cli_command *c = &record_cmds[mode];
    int opt, rc, sync_given = 0;
    memset(o, 0, sizeof *o);
    o->read.compression = FC_COMPRESSION_AUTO;
    o->read.crc_policy = FC_CRC_VERIFY;
    o->type = FC_PAYLOAD_AUTO;
    *done = 0;
    while ((opt = cli_next_option(c, argc, argv, &rc)) != 0) {
        int r;
        if (cli_input_option(c, opt, optarg, &o->read, &o->type, &o->max_memory, &r) ||
            cli_part_option(c, opt, optarg, &o->read, &sync_given, &r)) {
            if (r != 0)
                return r;
        } else if (opt == CLI_OPT_JSON) {
            o->json = 1;
        } else if (opt == CLI_OPT_LIMIT) {
            if (parse_count(optarg, &o->limit) != 0)
                return cli_usage_error(c, "bad number of records '%s'", optarg);
            o->has_limit = 1;
        } else if (opt == CLI_OPT_SKIP) {
            if (parse_count(optarg, &o->skip) != 0)
                return cli_usage_error(c, "bad number of records '%s'", optarg);
        } else if (opt == CLI_OPT_MAX_BYTES) {
            if (fc_input_parse_size(optarg, &o->print.max_bytes) != 0 || o->print.max_bytes == 0)
                return cli_usage_error(c, "bad size '%s' (a number from 1, with K, M or G)",
                                       optarg);
        } else if (opt == CLI_OPT_UTF8) {
            o->print.utf8 = 1;
        } else if (opt == CLI_OPT_JSON_BYTES) {
            if (strcmp(optarg, "text") == 0)
                o->print.json_bytes = PRINT_JSON_TEXT;
            else if (strcmp(optarg, "base64") == 0)
                o->print.json_bytes = PRINT_JSON_BASE64;
            else if (strcmp(optarg, "latin1") == 0)
                o->print.json_bytes = PRINT_JSON_LATIN1;
            else
                return cli_usage_error(c, "bad --json-bytes '%s' (text, base64 or latin1)",
                                       optarg);
        } else if (opt == 'q') {
            o->progress = PROGRESS_QUIET;
        } else if (opt == CLI_OPT_PROGRESS) {
            o->progress = PROGRESS_FORCE;
        } else if (opt == CLI_OPT_RAW) {
            if (optarg == NULL || strcmp(optarg, "text") == 0)
                o->raw = RAW_TEXT;
            else if (strcmp(optarg, "hex") == 0)
                o->raw = RAW_HEX;
            else if (strcmp(optarg, "base64") == 0)
                o->raw = RAW_BASE64;
            else
                return cli_usage_error(c, "unknown raw format '%s' (text, hex, base64)", optarg);
        } else if (opt == CLI_OPT_LENIENT) {
            o->flags |= FC_FALLBACK_LENIENT;
        } else if (opt == CLI_OPT_EXAMPLES) {
            o->examples = 1;
        } else if (opt == 'j') {
            if (cli_parse_jobs(optarg, &o->jobs) != 0)
                return cli_usage_error(c, "bad number of jobs '%s' (0 for one per CPU, or 1 to 1024)", optarg);
        }
    }
    if (rc >= 0) {
        *done = 1;
        return rc;
    }
    if ((rc = cli_part_done(c, &o->read, sync_given)) != 0)
        return rc;
    if (o->jobs > 1 && o->read.part != FC_PART_ALL)
        return cli_usage_error(c, "-j reads whole files in splits of its own; it does not go "
                                  "with --split, --range or --records");
    return cli_operands(c, argc, argv, &o->files, &o->nfiles);
}

static void report_file_error(const char *path, const fc_error *e)
{
    fprintf(stderr, "featc: %s: %s\n", path, e->message);
}

/* Under --crc=skip: how many records were skipped, and why the last one. */
static void report_skips(const char *path, const fc_input *in)
{
    if (fc_reader_skipped(&in->reader) > 0)
        fprintf(stderr, "featc: %s: skipped %llu corrupt records; last: %s\n", path,
                (unsigned long long)fc_reader_skipped(&in->reader),
                fc_reader_last_skip(&in->reader)->message);
}

/* The first n bytes of p in hexadecimal or base64, through a buffer. */
static void print_encoded(FILE *f, const uint8_t *p, size_t n, int raw)
{
    static const char hex[] = "0123456789abcdef";
    char buf[4096];
    size_t i = 0, k = 0;
    if (raw == RAW_HEX) {
        for (i = 0; i < n; i++) {
            buf[k++] = hex[p[i] >> 4];
            buf[k++] = hex[p[i] & 15];
            if (k + 2 > sizeof buf) {
                fwrite(buf, 1, k, f);
                k = 0;
            }
        }
    } else {
        for (i = 0; i < n; i += 3072) /* 3 KB of bytes, 4 KB of base64 */
            fwrite(buf, 1, print_base64_chars(buf, p + i, n - i < 3072 ? n - i : 3072), f);
    }
    fwrite(buf, 1, k, f);
}

/* cat --raw: a record's bytes, not decoded. */
static void print_raw(const record_opts *o, const fc_record *rec)
{
    static const char *const names[] = {"", "raw", "hex", "base64"};
    size_t n = rec->length, show;
    print_opts po = o->print;
    int utf8;
    if (o->raw != RAW_TEXT)
        po.utf8 = 0; /* hex and base64 are cut at any byte */
    show = print_value_shown(rec->data, n, &po, &utf8);
    if (o->json) {
        printf("\"size\":%zu,\"%s\":", n, names[o->raw]);
        if (o->raw == RAW_TEXT) {
            fc_json_string(stdout, rec->data, show, utf8);
        } else {
            putchar('"');
            print_encoded(stdout, rec->data, show, o->raw);
            putchar('"');
        }
        if (show < n)
            printf(",\"shown\":%zu", show);
        return;
    }
    printf("%s: ", names[o->raw]);
    if (o->raw == RAW_TEXT) {
        print_text_value(stdout, rec->data, n, &o->print);
    } else {
        print_encoded(stdout, rec->data, show, o->raw);
        if (show < n)
            printf("  # shortened: first %zu of %zu bytes", show, n);
    }
    putchar('\n');
}

/* "# PATH record I (L bytes at offset O)": the line of every record of
 * cat's text output. */
static void record_line(print_out *out, const char *path, uint64_t index, size_t length,
                        uint64_t offset)
{
    print_out_put(out, "# ", 2);
    print_out_put(out, path, strlen(path));
    print_out_put(out, " record ", 8);
    print_out_u64(out, index);
    print_out_put(out, " (", 2);
    print_out_u64(out, length);
    print_out_put(out, " bytes at offset ", 17);
    print_out_u64(out, offset);
    print_out_put(out, ")", 1);
}

static int run_cat(const record_opts *o)
{
    int rc = EXIT_OK, k, tty = isatty(STDOUT_FILENO);
    unsigned long long seen = 0, printed = 0;
    cli_decoder d;
    progress pg;
    static print_out out; /* 16 KB: not on the stack */
    print_out_init(&out, stdout);
    memset(&d, 0, sizeof d);
    d.limit = o->max_memory;
    progress_start(&pg, "cat", o->files, o->nfiles, o->progress, 1);
    for (k = 0; k < o->nfiles; k++) {
        const char *path = o->files[k];
        fc_input in;
        fc_record rec;
        int s;
        if (o->has_limit && printed >= o->limit)
            break; /* the files after the limit are not read */
        s = fc_input_open(&in, path, &o->read);
        if (s != FC_OK) {
            progress_clear(&pg);
            report_file_error(path, &in.err);
            fc_input_close(&in);
            rc = EXIT_DATA_ERR;
            continue;
        }
        for (;;) {
            fc_fallback fb;
            fc_error perr;
            fc_status ds = FC_OK;
            if (o->has_limit && printed >= o->limit) {
                s = FC_END;
                break;
            }
            if ((s = fc_input_next(&in, &rec)) != FC_OK)
                break;
            progress_record(&pg, fc_reader_raw_offset(&in.reader));
            if (seen++ < o->skip)
                continue;
            printed++;
            fc_error_clear(&perr);
            if (!o->raw)
                ds = cli_decode(&d, &rec, o->type, o->flags, &fb, &perr);
            /* gathered in out; stdio only for --raw and a record's error */
            if (o->json) {
                print_out_put(&out, "{", 1);
                if (o->nfiles > 1) {
                    print_out_put(&out, "\"file\":", 7);
                    print_out_json_string(&out, path, strlen(path), 1);
                    print_out_put(&out, ",", 1);
                }
                if (fc_reader_index_known(&in.reader)) {
                    print_out_put(&out, "\"record\":", 9);
                    print_out_u64(&out, rec.index);
                    print_out_put(&out, ",", 1);
                } else {
                    print_out_put(&out, "\"record\":null,", 14); /* after --sync=checksum */
                }
                if (o->read.part != FC_PART_ALL || o->raw) {
                    print_out_put(&out, "\"offset\":", 9);
                    print_out_u64(&out, rec.offset);
                    print_out_put(&out, ",", 1);
                }
                if (o->raw) {
                    print_out_flush(&out);
                    print_raw(o, &rec);
                } else if (ds == FC_OK) {
                    print_fallback_json_to(&out, &fb, &o->print);
                } else {
                    print_out_put(&out, "\"error\":", 8);
                    print_out_json_string(&out, perr.message, strlen(perr.message), 1);
                }
                print_out_put(&out, "}\n", 2);
            } else {
                if (fc_reader_index_known(&in.reader)) {
                    record_line(&out, path, rec.index, rec.length, rec.offset);
                } else {
                    print_out_flush(&out);
                    printf("# %s record ? (%zu bytes at offset %llu)", path, rec.length,
                           (unsigned long long)rec.offset);
                }
                if (o->raw) {
                    print_out_flush(&out);
                    putchar('\n');
                    print_raw(o, &rec);
                } else if (ds == FC_OK) {
                    if (fb.kind == FC_PAYLOAD_EXAMPLE)
                        print_out_put(&out, ": Example\n", 10);
                    else
                        print_out_put(&out, ": SequenceExample\n", 18);
                    print_fallback_text_to(&out, &fb, &o->print);
                } else {
                    size_t show = rec.length < 64 ? rec.length : 64;
                    print_out_flush(&out);
                    printf(": %s\n# payload%s: ", perr.message,
                           show < rec.length ? " (first 64 bytes)" : "");
                    print_text_bytes(stdout, rec.data, show);
                    fputc('\n', stdout);
                }
            }
            if (tty || ds != FC_OK)
                print_out_flush(&out); /* a record at a time to a terminal; before stderr */
            if (ds != FC_OK) {
                progress_clear(&pg);
                if (fc_reader_index_known(&in.reader))
                    fprintf(stderr, "featc: %s: record %llu: %s\n", path,
                            (unsigned long long)rec.index, perr.message);
                else
                    fprintf(stderr, "featc: %s: record at offset %llu: %s\n", path,
                            (unsigned long long)rec.offset, perr.message);
                if (rc == EXIT_OK)
                    rc = EXIT_RECORD_ERR;
            }
        }
        print_out_flush(&out);
        progress_clear(&pg);
        report_skips(path, &in);
        if (s != FC_END) {
            report_file_error(path, &in.err);
            rc = EXIT_DATA_ERR;
        }
        progress_file_done(&pg, fc_reader_raw_offset(&in.reader));
        fc_input_close(&in);
    }
    progress_end(&pg);
    free(d.mem);
    print_out_flush(&out);
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_fail(EXIT_DATA_ERR, "error writing standard output");
    return rc;
}

/* What count and verify print of one file, gathered from one read or from
 * the splits of a pool in file order. */
typedef struct file_tally {
    unsigned long long n, not_examples, too_big, skipped;
    fc_error first_bad; /* the first payload that is not an Example */
    fc_error failed;    /* why the read stopped; status FC_OK: at the end */
    fc_error last_skip;
    fc_compression compression;
    uint64_t bytes;     /* of the records read */
} file_tally;

static void tally_init(file_tally *t)
{
    memset(t, 0, sizeof *t);
    fc_error_clear(&t->first_bad);
    fc_error_clear(&t->failed);
    fc_error_clear(&t->last_skip);
}

/* verify --examples: decodes the payload of rec, and counts it when it is
 * not an Example or SequenceExample (or does not fit --max-memory). */
static void tally_payload(file_tally *t, cli_decoder *d, const record_opts *o,
                          const fc_record *rec)
{
    fc_fallback fb;
    fc_error perr;
    fc_status ds;
    fc_error_clear(&perr);
    ds = cli_decode(d, rec, FC_PAYLOAD_AUTO, o->flags, &fb, &perr);
    if (ds == FC_OK)
        return;
    if (ds == FC_ERR_NO_MEMORY)
        t->too_big++;
    else
        t->not_examples++;
    if (t->not_examples + t->too_big == 1) {
        fc_msg m = fc_error_begin(&t->first_bad, perr.status, rec->index, rec->offset);
        fc_msg_str(&m, "record ");
        fc_msg_u64(&m, rec->index);
        fc_msg_str(&m, " at offset ");
        fc_msg_u64(&m, rec->offset);
        fc_msg_str(&m, ": ");
        fc_msg_str(&m, perr.message);
    }
}

/* Prints the file's line (and stderr's) and returns its exit status; in
 * (may be NULL) adds the part that was read. */
static int tally_report(const file_tally *t, const record_opts *o, int mode, const char *path,
                        const fc_input *in, unsigned long long *total)
{
    if (mode == MODE_COUNT) {
        *total += t->n;
        if (t->failed.status != FC_OK) {
            /* the records read before the failure count, marked */
            report_file_error(path, &t->failed);
            if (t->n == 0)
                printf("0 %s (failed before its first record)\n", path);
            else
                printf("%llu %s (failed after %llu record%s)\n", t->n, path, t->n,
                       t->n == 1 ? "" : "s");
            return EXIT_DATA_ERR;
        }
        printf("%llu %s\n", t->n, path);
        if (t->skipped > 0)
            fprintf(stderr, "featc: %s: skipped %llu corrupt records; last: %s\n", path,
                    t->skipped, t->last_skip.message);
        return EXIT_OK;
    }
    if (t->failed.status != FC_OK) {
        printf("%s: FAILED: %s\n", path, t->failed.message);
        return EXIT_DATA_ERR;
    }
    if (t->not_examples > 0 || t->too_big > 0) {
        printf("%s: FAILED: ", path);
        if (t->not_examples > 0)
            printf("%llu of %llu records are not Examples or SequenceExamples%s",
                   t->not_examples, t->n, t->too_big > 0 ? ", " : "");
        if (t->too_big > 0)
            printf("%llu of %llu records could not be decoded within --max-memory", t->too_big,
                   t->n);
        printf("; first: %s\n", t->first_bad.message);
        return EXIT_RECORD_ERR;
    }
    printf("%s: OK: %llu record%s, %s, %llu bytes of records", path, t->n, t->n == 1 ? "" : "s",
           fc_compression_name(t->compression), (unsigned long long)t->bytes);
    if (in != NULL && o->read.part != FC_PART_ALL)
        printf(in->members != NULL
                   ? " from offset %llu (the gzip members starting in compressed bytes "
                     "[%llu, %llu))"
                   : " from offset %llu (the records starting in [%llu, %llu))",
               (unsigned long long)in->part_start, (unsigned long long)in->part_begin,
               (unsigned long long)in->part_end);
    putchar('\n');
    return EXIT_OK;
}

/* The worse of two exit statuses of a file list (2 over 1 over 0). */
static int worse(int rc, int file_rc)
{
    return file_rc > rc ? file_rc : rc;
}

/* count's total line: the records of every file, those read before a
 * failure included, and how many files failed. */
static void count_total(unsigned long long total, int failed, int nfiles)
{
    if (failed == 0)
        printf("%llu total\n", total);
    else
        printf("%llu total (incomplete: %d of %d files failed; the records read before "
               "each failure are counted)\n", total, failed, nfiles);
}

static int run_count_or_verify(const record_opts *o, int mode)
{
    int rc = EXIT_OK, k, failed = 0;
    unsigned long long total = 0;
    cli_decoder d;
    progress pg;
    memset(&d, 0, sizeof d);
    d.limit = o->max_memory;
    progress_start(&pg, mode == MODE_COUNT ? "count" : "verify", o->files, o->nfiles,
                   o->progress, 0);
    for (k = 0; k < o->nfiles; k++) {
        const char *path = o->files[k];
        fc_input in;
        fc_record rec;
        file_tally t;
        int file_rc;
        int s = fc_input_open(&in, path, &o->read);
        tally_init(&t);
        if (s == FC_OK) {
            while ((s = fc_input_next(&in, &rec)) == FC_OK) {
                t.n++;
                progress_record(&pg, fc_reader_raw_offset(&in.reader));
                if (mode == MODE_VERIFY && o->examples)
                    tally_payload(&t, &d, o, &rec);
            }
        }
        if (s != FC_END) {
            t.failed = in.err;
        } else {
            t.skipped = fc_reader_skipped(&in.reader);
            t.last_skip = *fc_reader_last_skip(&in.reader);
            t.compression = fc_reader_compression(&in.reader);
            t.bytes = fc_reader_offset(&in.reader) - in.part_start;
        }
        progress_clear(&pg);
        file_rc = tally_report(&t, o, mode, path, &in, &total);
        progress_file_done(&pg, fc_reader_raw_offset(&in.reader));
        failed += file_rc == EXIT_DATA_ERR;
        rc = worse(rc, file_rc);
        fc_input_close(&in);
    }
    progress_end(&pg);
    if (mode == MODE_COUNT && o->nfiles > 1)
        count_total(total, failed, o->nfiles);
    free(d.mem);
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_fail(EXIT_DATA_ERR, "error writing standard output");
    return rc;
}

/* verify --examples in the pool: each thread decodes with its own decoder
 * (the thread's state) into the split's own tally (split->user). */
static fc_status pool_count_record(void *ctx, void *state, fc_pool_split *split,
                                   const fc_record *rec, fc_error *err)
{
    const record_opts *o = (const record_opts *)ctx;
    cli_decoder *d = (cli_decoder *)state;
    file_tally *t = (file_tally *)split->user;
    if (!o->examples)
        return FC_OK;
    if (t == NULL) {
        t = (file_tally *)malloc(sizeof *t);
        if (t == NULL) {
            fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, rec->index, rec->offset);
            fc_msg_str(&m, "out of memory");
            return FC_ERR_NO_MEMORY;
        }
        tally_init(t);
        split->user = t;
    }
    d->limit = o->max_memory;
    tally_payload(t, d, o, rec);
    return FC_OK;
}

static void pool_decoder_free(void *ctx, void *state)
{
    (void)ctx;
    free(((cli_decoder *)state)->mem);
}

/* count and verify with -j: the files in splits over o->jobs threads, in
 * file order; each file's splits are added up until one fails (a sequential
 * read stops there), and the file gets the line it gets without -j. */
static int run_pool(const record_opts *o, int mode)
{
    fc_pool_options po;
    fc_pool_work w;
    fc_pool *pool;
    fc_pool_split *sp;
    fc_error err;
    file_tally t;
    int rc = EXIT_OK, failed = 0;
    unsigned long long total = 0;
    progress pg;
    memset(&po, 0, sizeof po);
    po.threads = o->jobs;
    po.ordered = 1;
    po.compression = o->read.compression;
    po.crc_policy = o->read.crc_policy;
    po.max_record_size = o->read.max_record_size;
    w.ctx = (void *)(uintptr_t)o;
    w.state_size = sizeof(cli_decoder);
    w.record = pool_count_record;
    w.state_free = pool_decoder_free;
    tally_init(&t);
    if (fc_pool_open(&pool, (const char *const *)o->files, (size_t)o->nfiles, &po, &w, &err) !=
        FC_OK) {
        fprintf(stderr, "featc: %s\n", err.message);
        return EXIT_DATA_ERR;
    }
    progress_start(&pg, mode == MODE_COUNT ? "count" : "verify", o->files, o->nfiles,
                   o->progress, 0);
    while (fc_pool_next(pool, &sp) == FC_OK) {
        file_tally *u = (file_tally *)sp->user;
        struct stat st;
        uint64_t end = sp->end;
        if (end == UINT64_MAX) /* a whole file */
            end = stat(o->files[sp->file], &st) == 0 ? (uint64_t)st.st_size : sp->begin;
        progress_part(&pg, end - sp->begin, sp->records);
        if (sp->split == 0)
            tally_init(&t);
        if (t.failed.status == FC_OK) {
            t.n += sp->records;
            t.bytes = sp->stop;
            t.compression = sp->compression;
            t.skipped += sp->skipped;
            if (sp->skipped > 0)
                t.last_skip = sp->last_skip;
            if (u != NULL) {
                if (t.not_examples + t.too_big == 0 && u->not_examples + u->too_big > 0)
                    t.first_bad = u->first_bad;
                t.not_examples += u->not_examples;
                t.too_big += u->too_big;
            }
            if (sp->status != FC_END)
                t.failed = sp->err;
        }
        free(u);
        sp->user = NULL;
        if (sp->split + 1 == sp->splits) {
            int file_rc;
            progress_clear(&pg);
            file_rc = tally_report(&t, o, mode, o->files[sp->file], NULL, &total);
            failed += file_rc == EXIT_DATA_ERR;
            rc = worse(rc, file_rc);
        }
    }
    fc_pool_close(pool);
    progress_end(&pg);
    if (mode == MODE_COUNT && o->nfiles > 1)
        count_total(total, failed, o->nfiles);
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_fail(EXIT_DATA_ERR, "error writing standard output");
    return rc;
}

static int run_mode(int argc, char **argv, int mode)
{
    record_opts o;
    int done, rc = parse_record_opts(argc, argv, mode, &o, &done);
    if (rc != 0 || done)
        return rc;
    if (mode != MODE_CAT && o.jobs > 1)
        return run_pool(&o, mode);
    return mode == MODE_CAT ? run_cat(&o) : run_count_or_verify(&o, mode);
}

int cmd_cat(int argc, char **argv)
{
    return run_mode(argc, argv, MODE_CAT);
}

int cmd_count(int argc, char **argv)
{
    return run_mode(argc, argv, MODE_COUNT);
}

int cmd_verify(int argc, char **argv)
{
    return run_mode(argc, argv, MODE_VERIFY);
}
