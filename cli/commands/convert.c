/* featc convert: TFRecord files to Arrow IPC (a file, or a stream with
 * --stream) or to Parquet (fc_parquet, OUT ending in .parquet or .pq), read through a spec's message or, without --spec, through
 * the spec featc infer gives for the same files; and Arrow IPC back to
 * TFRecords through a spec's serializer (convert_back.c).
 *
 * TFRecords to Arrow: fc_arrow_stream_hooked reads the files in turn
 * (compression, CRC policy and part options as every record tool), parses
 * each batch of --batch-size records by the message's descriptors (the
 * runtime's general parse path: the generated parser's values and errors),
 * and exports it; fc_arrow_ipc writes each batch as a record batch.  The
 * output goes to a temporary file beside OUT, renamed over OUT only when
 * every record is converted: a record that does not parse or a damaged
 * file leaves nothing under OUT.
 *
 * Memory: the records of one batch (copied), the batch's block at the
 * spec's bounds, the arrays' offsets and copied bytes, freed batch by
 * batch. */
#include "commands.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <featc/fc_arrow.h>
#include <featc/fc_parquet.h>
#include <featc/featc_dynamic.h>

#include <featc/fc_codecs.h>
#include "base/progress.h"
#include "base/spec.h"
#include "convert_back.h"

static const char *const convert_usage =
    "usage: featc convert [options] FILE... -o OUT\n"
    "\n"
    "Converts TFRecord files to Apache Arrow's IPC format or to Parquet: a\n"
    "column per feature of the spec's message, a row per record, in record\n"
    "batches of --batch-size rows (docs/arrow.md has the types; Parquet's are\n"
    "Arrow's, lists as Parquet's LIST, and the Arrow schema in the file's\n"
    "metadata).  Without --spec, the\n"
    "columns are those of the spec featc infer prints for the same files\n"
    "(read twice: once to infer, once to convert).\n"
    "\n"
    "Converts Arrow IPC files or streams, and Parquet files (docs/parquet.md:\n"
    "DuckDB's, Spark's, featc's), back to a TFRecord file through --spec's\n"
    "serializer: each row one record, the bytes featc's generated code and\n"
    "the Python module write; a null an absent feature; OUT ending in .gz is\n"
    "GZIP, .zz ZLIB, unless --compression says.\n"
    "\n"
    "The way is OUT's: .arrow, .arrows, .feather, .ipc are Arrow; .parquet,\n"
    ".pq Parquet; .tfrecord, .tfrecords, .tfr, .record, .gz, .zz TFRecords; a\n"
    "name of another format (.csv, .json, ...) is refused; another name takes the way the\n"
    "first input's first bytes say (Arrow or Parquet in: TFRecords out).\n"
    "\n"
    "OUT is written through a temporary file beside it and renamed at the\n"
    "end: a record that does not parse, a damaged input or a row that does\n"
    "not fit the spec leaves nothing under OUT.\n"
    "\n"
    "options:\n"
    "  -o, --output=OUT        the file to write (required)\n"
    "  --spec=SPEC             the spec whose message gives the columns\n"
    "  --message=NAME          the message of SPEC (default: its first)\n"
    "  --stream                write Arrow's streaming format (default: the\n"
    "                          file format, unless OUT ends in .arrows)\n"
    "  --large                 64-bit offsets: large_list and large_binary, as\n"
    "                          tfx-bsl gives (default: list and binary, which\n"
    "                          every Arrow reader knows; a batch whose offsets\n"
    "                          pass 2^31 is then an error)\n"
    "  --batch-size=N          rows per record batch (default 1024)\n"
    "  --codec=none|snappy|gzip|zstd   Parquet's compression (default snappy)\n"
    "  --row-group-size=N      rows per Parquet row group (default 65536)\n"
    "  --page-size=BYTES       a Parquet page ends at the first row that takes\n"
    "                          its values past BYTES (default 1M)\n"
    "  -j, --jobs=N            parse and export the batches on N threads while\n"
    "                          this one reads the files and writes OUT, in\n"
    "                          order (0: one per CPU; default 1); from Parquet,\n"
    "                          its row groups on up to N threads (one per 4)\n"
    "  -c, --compression=auto|none|zlib|gzip   of the TFRecord input (default\n"
    "                          auto), or of the TFRecord output\n"
    "  --crc=verify|skip|none  (default verify)\n"
    "  --max-record-size=N     (default 1G)\n"
    PROGRESS_HELP
    CLI_PART_HELP
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 converted; 1 a record or row does not fit the spec, or\n"
    "errors in the spec; 2 a file is unreadable or damaged, or OUT cannot be\n"
    "written; 64 usage error.\n";

enum {
    OPT_SPEC = CLI_OPT_PROGRESS + 1,
    OPT_MESSAGE,
    OPT_STREAM,
    OPT_BATCH_SIZE,
    OPT_LARGE,
    OPT_CODEC,
    OPT_ROW_GROUP,
    OPT_PAGE_SIZE
};

static const struct option convert_long[] = {
    {"output", required_argument, NULL, 'o'},
    {"spec", required_argument, NULL, OPT_SPEC},
    {"message", required_argument, NULL, OPT_MESSAGE},
    {"stream", no_argument, NULL, OPT_STREAM},
    {"batch-size", required_argument, NULL, OPT_BATCH_SIZE},
    {"large", no_argument, NULL, OPT_LARGE},
    {"codec", required_argument, NULL, OPT_CODEC},
    {"row-group-size", required_argument, NULL, OPT_ROW_GROUP},
    {"page-size", required_argument, NULL, OPT_PAGE_SIZE},
    CLI_JOBS_OPTION,
    {"crc", required_argument, NULL, CLI_OPT_CRC},
    PROGRESS_OPTIONS, CLI_INPUT_OPTIONS, CLI_PART_OPTIONS, CLI_COMMON_OPTIONS,
    {NULL, 0, NULL, 0}};
static const cli_command convert_cmd = {"convert", convert_usage, "c:o:j:qh", convert_long};

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && strcmp(s + n - k, tail) == 0;
}

/* The decimal count s says, from 1 to max; 0 when it is not one. */
static uint64_t count_of(const char *s, uint64_t max)
{
    char *end;
    unsigned long long v;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (s[0] < '0' || s[0] > '9' || *end != '\0' || errno != 0 || v == 0 || v > max)
        return 0;
    return (uint64_t)v;
}

/* Returns 0 to go on, else the exit status (help and version: 0 after
 * *done is set). */
static int parse_opts(int argc, char **argv, convert_opts *o, int *done)
{
    int opt, rc, sync_given = 0, compression_given = 0;
    memset(o, 0, sizeof *o);
    o->read.compression = FC_COMPRESSION_AUTO;
    o->read.crc_policy = FC_CRC_VERIFY;
    o->batch_size = 1024;
    o->codec = FC_PARQUET_SNAPPY;
    o->row_group_rows = FC_PARQUET_ROW_GROUP_ROWS;
    o->page_bytes = FC_PARQUET_PAGE_BYTES;
    o->jobs = 1;
    *done = 0;
    while ((opt = cli_next_option(&convert_cmd, argc, argv, &rc)) != 0) {
        int r;
        if (opt == 'c')
            compression_given = 1;
        if (cli_input_option(&convert_cmd, opt, optarg, &o->read, NULL, NULL, &r) ||
            cli_part_option(&convert_cmd, opt, optarg, &o->read, &sync_given, &r)) {
            if (r != 0)
                return r;
        } else if (opt == 'o') {
            o->output = optarg;
        } else if (opt == OPT_SPEC) {
            o->spec = optarg;
        } else if (opt == OPT_MESSAGE) {
            o->message = optarg;
        } else if (opt == OPT_STREAM) {
            o->stream = 1;
        } else if (opt == OPT_LARGE) {
            o->large = 1;
        } else if (opt == OPT_CODEC) {
            if ((o->codec = fc_parquet_codec(optarg)) < 0)
                return cli_usage_error(&convert_cmd, "unknown codec '%s' (none, snappy, gzip, "
                                                     "zstd)",
                                       optarg);
        } else if (opt == OPT_ROW_GROUP) {
            if ((o->row_group_rows = count_of(optarg, INT32_MAX)) == 0)
                return cli_usage_error(&convert_cmd, "bad row group size '%s' (1 to %ld)",
                                       optarg, (long)INT32_MAX);
        } else if (opt == OPT_PAGE_SIZE) {
            size_t v;
            if (fc_input_parse_size(optarg, &v) != 0 || v == 0 || v > (1u << 30))
                return cli_usage_error(&convert_cmd, "bad page size '%s' (1 to 1G bytes)",
                                       optarg);
            o->page_bytes = (size_t)v;
        } else if (opt == 'j') {
            if (cli_parse_jobs(optarg, &o->jobs) != 0)
                return cli_usage_error(&convert_cmd, "bad number of jobs '%s' (0 for one per "
                                                     "CPU, or 1 to 1024)",
                                       optarg);

        } else if (opt == OPT_BATCH_SIZE) {
            if ((o->batch_size = (size_t)count_of(optarg, 1u << 24)) == 0)
                return cli_usage_error(&convert_cmd, "bad batch size '%s' (1 to %u)", optarg,
                                       1u << 24);
        } else if (opt == 'q') {
            o->progress = PROGRESS_QUIET;
        } else if (opt == CLI_OPT_PROGRESS) {
            o->progress = PROGRESS_FORCE;
        }
    }
    if (rc >= 0) {
        *done = 1;
        return rc;
    }
    if ((rc = cli_part_done(&convert_cmd, &o->read, sync_given)) != 0)
        return rc;
    if (o->output == NULL)
        return cli_usage_error(&convert_cmd, "no output file: give -o OUT");
    if (o->message != NULL && o->spec == NULL)
        return cli_usage_error(&convert_cmd, "--message names a message of --spec");
    if (ends_with(o->output, ".arrows"))
        o->stream = 1;
    o->compression_given = compression_given;
    return cli_operands(&convert_cmd, argc, argv, &o->files, &o->nfiles);
}

/* ------------------------------------------------------------ to Arrow */

typedef struct to_arrow {
    cli_spec spec;
    fc_feature_ref *refs; /* each worker's nrefs + 1 */
    progress pg;
} to_arrow;

static int parse_hook(void *ctx, unsigned worker, void *msg, const void *data, size_t len,
                      fc_error *err)
{
    const to_arrow *t = (const to_arrow *)ctx;
    fc_record rec;
    memset(&rec, 0, sizeof rec);
    rec.data = (const unsigned char *)data;
    rec.length = len;
    return cli_spec_parse(&t->spec, msg, t->refs + worker * (t->spec.nrefs + 1), &rec, err);
}

static void record_hook(void *ctx, uint64_t file_bytes)
{
    progress_record(&((to_arrow *)ctx)->pg, file_bytes);
}

static void file_hook(void *ctx, const char *path, uint64_t file_bytes)
{
    (void)path;
    progress_file_done(&((to_arrow *)ctx)->pg, file_bytes);
}

/* The output's writer: Arrow IPC's or Parquet's. */
typedef struct sink {
    fc_arrow_ipc *ipc;
    fc_parquet *pq;
    fc_codecs *codecs; /* ZSTD's context, kept from page to page */
} sink;

static int sink_open(const convert_opts *o, sink *k, FILE *f, const struct ArrowSchema *schema,
                     fc_error *err)
{
    fc_parquet_options po;
    memset(k, 0, sizeof *k);
    if (!o->parquet)
        return fc_arrow_ipc_open(&k->ipc, f,
                                 o->stream ? FC_ARROW_IPC_STREAM : FC_ARROW_IPC_FILE, schema,
                                 err);
    memset(&po, 0, sizeof po);
    po.codec = o->codec;
    po.compress = fc_codecs_compress;
    po.compress_ctx = k->codecs = fc_codecs_new(); /* (NULL: a context per page) */
    po.row_group_rows = o->row_group_rows;
    po.page_bytes = o->page_bytes;
    if (fc_parquet_open(&k->pq, f, schema, &po, err) != FC_OK) {
        fc_codecs_free(k->codecs);
        k->codecs = NULL;
        return err->status;
    }
    return FC_OK;
}

static int sink_write(sink *k, const struct ArrowArray *a, fc_error *err)
{
    return k->pq != NULL ? fc_parquet_write(k->pq, a, err) : fc_arrow_ipc_write(k->ipc, a, err);
}

static int sink_close(sink *k, fc_error *err)
{
    int s = k->pq != NULL ? fc_parquet_close(k->pq, err) : fc_arrow_ipc_close(k->ipc, err);
    fc_codecs_free(k->codecs);
    k->codecs = NULL;
    return s;
}

/* The stream's batches into the writer: EXIT_OK or the status, the error
 * printed. */
static int pump(const convert_opts *o, struct ArrowArrayStream *st, FILE *f, uint64_t *rows,
                to_arrow *t)
{
    struct ArrowSchema schema;
    sink k;
    fc_error err;
    int rc = EXIT_OK, e;
    fc_error_clear(&err);
    if ((e = st->get_schema(st, &schema)) != 0)
        return cli_fail(EXIT_RECORD_ERR, "%s", st->get_last_error(st));
    if (sink_open(o, &k, f, &schema, &err) != FC_OK) {
        schema.release(&schema);
        return cli_fail(EXIT_DATA_ERR, "%s: %s", o->output, err.message);
    }
    for (;;) {
        struct ArrowArray a;
        e = st->get_next(st, &a);
        if (e != 0) {
            const char *m = st->get_last_error(st);
            progress_clear(&t->pg);
            fprintf(stderr, "featc: %s\n", m != NULL ? m : strerror(e));
            rc = e == EINVAL ? EXIT_RECORD_ERR : EXIT_DATA_ERR;
            break;
        }
        if (a.release == NULL)
            break;
        *rows += (uint64_t)a.length;
        if (sink_write(&k, &a, &err) != FC_OK) {
            a.release(&a);
            progress_clear(&t->pg);
            rc = cli_fail(EXIT_DATA_ERR, "%s: %s", o->output, err.message);
            break;
        }
        a.release(&a);
    }
    if (sink_close(&k, &err) != FC_OK && rc == EXIT_OK)
        rc = cli_fail(EXIT_DATA_ERR, "%s: %s", o->output, err.message);
    schema.release(&schema);
    return rc;
}

static int open_spec(const convert_opts *o, cli_spec *s)
{
    char *text = NULL;
    size_t len = 0;
    int k, rc;
    if (o->spec != NULL)
        return cli_spec_open(s, o->spec, o->message);
    for (k = 0; k < o->nfiles; k++)
        if (strcmp(o->files[k], "-") == 0)
            return cli_fail(EXIT_USAGE_ERR, "convert: standard input is read once: give "
                                            "--spec (featc infer's output, say)");
    rc = cli_infer_spec(o->files, o->nfiles, &o->read, o->progress, &text, &len);
    if (rc != EXIT_OK)
        return rc;
    rc = cli_spec_open_text(s, "<inferred spec>", text, len, NULL);
    free(text);
    return rc;
}

static int to_arrow_run(const convert_opts *o)
{
    to_arrow t;
    struct ArrowArrayStream st;
    fc_arrow_stream_hooks hooks;
    fc_error err;
    fc_output dst;
    uint64_t rows = 0;
    int rc;
    memset(&t, 0, sizeof t);
    if ((rc = open_spec(o, &t.spec)) != EXIT_OK)
        return rc;
    t.refs = (fc_feature_ref *)calloc((t.spec.nrefs + 1) * (o->jobs > 0 ? o->jobs : 1),
                                      sizeof *t.refs);
    if (t.refs == NULL) {
        cli_spec_close(&t.spec);
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    }
    memset(&hooks, 0, sizeof hooks);
    hooks.parse = parse_hook;
    hooks.record = record_hook;
    hooks.file_done = file_hook;
    hooks.ctx = &t;
    hooks.threads = o->jobs;
    if (t.spec.md != NULL) { /* the direct path, by the compiled spec's lookup */
        hooks.lookup = featc_dynamic_lookup;
        hooks.lookup_ctx = t.spec.d;
    } else { /* a SequenceExample's, by its descriptor's lookups */
        hooks.lookup = t.spec.sd->context_lookup;
        hooks.lookup_ctx = t.spec.sd;
    }
    fc_error_clear(&err);
    if (fc_arrow_stream_hooked(t.spec.md, t.spec.sd, o->large ? FC_ARROW_LARGE : 0u,
                               (const char *const *)o->files,
                               (size_t)o->nfiles, o->batch_size, &o->read, &hooks, &st,
                               &err) != FC_OK) {
        free(t.refs);
        cli_spec_close(&t.spec);
        return cli_fail(EXIT_DATA_ERR, "%s", err.message);
    }
    if ((rc = cli_temp_open(&dst, o->output)) == EXIT_OK) {
        progress_start(&t.pg, "convert", o->files, o->nfiles, o->progress, 0);
        rc = pump(o, &st, dst.f, &rows, &t);
        progress_end(&t.pg);
        rc = cli_temp_close(&dst, o->output, rc == EXIT_OK) == EXIT_OK ? rc
             : rc != EXIT_OK                                        ? rc
                                                                    : EXIT_DATA_ERR;
    }
    st.release(&st);
    free(t.refs);
    cli_spec_close(&t.spec);
    return rc;
}

/* What OUT's name says it is: 1 Arrow, 2 Parquet, 0 TFRecords, -1 none. */
static int output_kind(const char *out)
{
    static const char *const arrow[] = {".arrow", ".arrows", ".feather", ".ipc", NULL};
    static const char *const parquet[] = {".parquet", ".pq", NULL};
    static const char *const records[] = {".tfrecord", ".tfrecords", ".tfr", ".record", ".gz",
                                          ".zz", NULL};
    int k;
    for (k = 0; arrow[k] != NULL; k++)
        if (ends_with(out, arrow[k]))
            return 1;
    for (k = 0; parquet[k] != NULL; k++)
        if (ends_with(out, parquet[k]))
            return 2;
    for (k = 0; records[k] != NULL; k++)
        if (ends_with(out, records[k]))
            return 0;
    return -1;
}

/* The format another name of OUT's says, which convert does not write (a
 * CSV file holding Arrow IPC would be refused by every reader of CSV), or
 * NULL. */
static const char *foreign_output(const char *out)
{
    static const struct {
        const char *ext, *format;
    } foreign[] = {{".csv", "CSV"},
                   {".tsv", "TSV"},         {".json", "JSON"},      {".jsonl", "JSON Lines"},
                   {".ndjson", "JSON Lines"}, {".avro", "Avro"},    {".orc", "ORC"},
                   {".xlsx", "Excel"},      {".npy", "NumPy"},      {".npz", "NumPy"}};
    size_t k, n = strlen(out);
    for (k = 0; k < sizeof foreign / sizeof foreign[0]; k++) {
        size_t e = strlen(foreign[k].ext), i;
        if (n < e)
            continue;
        for (i = 0; i < e && tolower((unsigned char)out[n - e + i]) == foreign[k].ext[i]; i++)
            ;
        if (i == e)
            return foreign[k].format;
    }
    return NULL;
}

/* fc_input_options.open_fd: the job's own open file for path, duplicated
 * (fc_input_close closes the duplicate), so that infer and the conversion
 * read the file opened once, not whatever the name holds by then. */
static int reuse_fd(void *ctx, const char *path)
{
    const convert_opts *o = (const convert_opts *)ctx;
    int k;
    for (k = 0; k < o->nfiles; k++)
        if (o->fds[k] >= 0 && (o->files[k] == path || strcmp(o->files[k], path) == 0))
            return fcntl(o->fds[k], F_DUPFD_CLOEXEC, 0);
    return open(path, O_RDONLY | O_CLOEXEC);
}

/* Opens every input once and tells which start as Arrow IPC: the exit
 * status, errors printed. */
static int open_inputs(convert_opts *o)
{
    int k;
    o->fds = (int *)malloc((size_t)o->nfiles * sizeof *o->fds);
    o->arrow = (int *)calloc((size_t)o->nfiles, sizeof *o->arrow);
    if (o->fds == NULL || o->arrow == NULL)
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    for (k = 0; k < o->nfiles; k++)
        o->fds[k] = -1;
    for (k = 0; k < o->nfiles; k++) {
        if (strcmp(o->files[k], "-") == 0)
            continue;
        o->fds[k] = open(o->files[k], O_RDONLY | O_CLOEXEC);
        if (o->fds[k] < 0)
            return cli_fail(EXIT_DATA_ERR, "%s: %s", o->files[k], strerror(errno));
        if ((o->arrow[k] = cli_arrow_input(o->fds[k], o->files[k])) < 0)
            return EXIT_DATA_ERR;
    }
    o->read.open_fd = reuse_fd;
    o->read.open_ctx = o;
    return EXIT_OK;
}

static void close_inputs(convert_opts *o)
{
    int k;
    for (k = 0; o->fds != NULL && k < o->nfiles; k++)
        if (o->fds[k] >= 0)
            close(o->fds[k]);
    free(o->fds);
    free(o->arrow);
}

/* The conversion o asks for, its inputs open. */
static int convert_run(convert_opts *o)
{
    int arrow_out = output_kind(o->output), k;
    const char *foreign, *missing;
    /* the way: by OUT's name, else by the first input's first bytes */
    if (arrow_out < 0 && (foreign = foreign_output(o->output)) != NULL)
        return cli_usage_error(&convert_cmd,
                               "'%s' names a %s file, which featc convert does not write: "
                               "it writes Arrow IPC (.arrow, .arrows, .feather, .ipc), "
                               "Parquet (.parquet, .pq) and TFRecords (.tfrecord, "
                               ".tfrecords, .tfr, .record, .gz, .zz)",
                               o->output, foreign);
    if (arrow_out < 0)
        arrow_out = !o->arrow[0];
    if (!arrow_out)
        return cli_arrow_to_records(o);
    for (k = 0; k < o->nfiles; k++)
        if (o->arrow[k])
            return cli_fail(EXIT_DATA_ERR, "%s: %s, and %s is to be %s: "
                                           "%s goes back to TFRecords with -o "
                                           "FILE.tfrecord",
                            o->files[k], o->arrow[k] == 2 ? "a Parquet file" : "an Arrow IPC file",
                            o->output, arrow_out == 2 ? "Parquet" : "Arrow",
                            o->arrow[k] == 2 ? "Parquet" : "Arrow");
    o->parquet = arrow_out == 2;
    if (o->parquet && (missing = fc_codecs_missing(o->codec)) != NULL)
        return cli_fail(EXIT_USAGE_ERR, "convert: this featc was built without %s: "
                                        "--codec gzip or none, or build featc with %s "
                                        "installed (make deps)",
                        missing, missing);
    return to_arrow_run(o);
}

int cmd_convert(int argc, char **argv)
{
    convert_opts o;
    int done, rc = parse_opts(argc, argv, &o, &done);
    if (rc != 0 || done)
        return rc;
#ifdef __GLIBC__
    /* Each row group (Parquet in or out) and batch allocates its columns
     * anew and frees them after: below glibc's default thresholds they went
     * back to the kernel and were faulted in again, page by page, every
     * time (10% of the time of a Parquet file back to records).  Kept in the
     * heap instead (mmap only past 32 MiB, the most glibc takes; the top
     * given back past 128 MiB), they are reused: 12-14% less time. */
    (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
    (void)mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
    o.fds = NULL;
    o.arrow = NULL;
    if (output_kind(o.output) < 0 && foreign_output(o.output) != NULL)
        return convert_run(&o); /* the usage error, before any input is opened */
    rc = open_inputs(&o);
    if (rc == EXIT_OK)
        rc = convert_run(&o);
    close_inputs(&o);
    return rc;
}
