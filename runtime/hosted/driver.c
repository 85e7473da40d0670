/* The JSON dump driver behind `featc compile --driver` (fc_driver.h).
 */
#include "featc/fc_driver.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "featc/fc_input.h"
#include "featc/fc_json.h"

/* Records of the batch being gathered: copies (a reader's views do not
 * outlive the next record), with where they came from. */
typedef struct batch_buf {
    unsigned char *data;
    size_t used, cap;
    size_t n;
    size_t *offsets, *lengths;
    uint64_t *index, *file_offset;
    const char **path;
    fc_bytes *views;
} batch_buf;

static int batch_add(batch_buf *b, const fc_record *rec, uint64_t n, const char *path)
{
    if (rec->length > b->cap - b->used) {
        size_t cap = b->cap * 2 > b->used + rec->length ? b->cap * 2 : b->used + rec->length;
        unsigned char *d = (unsigned char *)realloc(b->data, cap > 0 ? cap : 1);
        if (d == NULL)
            return -1;
        b->data = d;
        b->cap = cap;
    }
    if (rec->length > 0)
        memcpy(b->data + b->used, rec->data, rec->length);
    b->offsets[b->n] = b->used;
    b->lengths[b->n] = rec->length;
    b->index[b->n] = n;
    b->file_offset[b->n] = rec->offset;
    b->path[b->n] = path;
    b->used += rec->length;
    b->n++;
    return 0;
}

/* What the driver loop needs to know of a message kind. */
typedef struct driver_kind {
    size_t size;
    int (*parse)(void *out, const void *data, size_t len, fc_error *err);
    const fc_message_desc *md;
    const fc_seq_desc *sd;
    unsigned json; /* FC_JSON_UTF8 with --utf8 */
} driver_kind;

/* {"WHAT":N,"error":"record I (offset O of PATH): MESSAGE"}, the error
 * object of the dump contract (WHAT is "record" or "batch"). */
static void print_error(const char *what, uint64_t n, uint64_t index, uint64_t offset,
                        const char *path, const char *message)
{
    char text[FC_ERROR_MSG_SIZE + 256];
    snprintf(text, sizeof text, "record %llu (offset %llu of %s): %s", (unsigned long long)index,
             (unsigned long long)offset, path, message);
    printf("{\"%s\":%llu,\"error\":", what, (unsigned long long)n);
    fc_json_string(stdout, text, strlen(text), 1);
    fputs("}\n", stdout);
}

/* Parses and prints batch k; returns 0, or 1 when it failed. */
static int batch_flush(const driver_kind *dk, batch_buf *b, uint64_t k, fc_column *cols,
                       void *scratch, int ragged)
{
    unsigned flags;
    fc_error err;
    size_t i, n = b->n; /* 0: the one empty batch of an input without records */
    int rc;
    for (i = 0; i < n; i++) {
        /* b->data stays NULL while every record so far was empty */
        b->views[i].data = b->data != NULL ? b->data + b->offsets[i] : NULL;
        b->views[i].size = b->lengths[i];
    }
    rc = dk->md != NULL ? fc_batch_parse(dk->md, cols, scratch, b->views, n, &err)
                        : fc_batch_parse_seq(dk->sd, cols, scratch, b->views, n, &err);
    b->n = 0;
    b->used = 0;
    if (rc != FC_OK) {
        size_t r = (size_t)err.record;
        if (err.record < n) {
            print_error("batch", k, b->index[r], b->file_offset[r], b->path[r], err.message);
        } else { /* not a record's: a buffer (the driver binds them all) */
            printf("{\"batch\":%llu,\"error\":", (unsigned long long)k);
            fc_json_string(stdout, err.message, strlen(err.message), 1);
            fputs("}\n", stdout);
        }
        return 1;
    }
    printf("{\"batch\":%llu,", (unsigned long long)k);
    flags = dk->json | (ragged ? FC_JSON_RAGGED : 0u);
    if (dk->md != NULL) {
        fputs("\"features\":", stdout);
        fc_json_batch_features(stdout, dk->md, cols, flags);
    } else {
        fputs("\"context\":", stdout);
        fc_json_batch_context(stdout, dk->sd, cols, flags);
        fputs(",\"feature_lists\":", stdout);
        fc_json_batch_feature_lists(stdout, dk->sd, cols, flags);
        fputs(",\"lengths\":", stdout);
        fc_json_batch_lengths(stdout, dk->sd, cols);
    }
    fputs("}\n", stdout);
    return 0;
}

static void print_record(const driver_kind *k, uint64_t n, const void *msg)
{
    printf("{\"record\":%llu,", (unsigned long long)n);
    if (k->md != NULL) {
        fputs("\"features\":", stdout);
        fc_json_features_opt(stdout, k->md, msg, k->json);
    } else {
        fputs("\"context\":", stdout);
        fc_json_context_opt(stdout, k->sd, msg, k->json);
        fputs(",\"feature_lists\":", stdout);
        fc_json_feature_lists_opt(stdout, k->sd, msg, k->json);
    }
    fputs("}\n", stdout);
}

static const char *const driver_usage =
    "usage: %s [options] [FILE...]\n"
    "\n"
    "Prints one JSON object per record; with --batch, one per batch of B\n"
    "records in tf.io.parse_example's layout (VarLen features as\n"
    "SparseTensors, or with --ragged as values and row splits).  A FILE of -\n"
    "is standard input, also read when no FILE is given and it is not a\n"
    "terminal.\n"
    "\n"
    "options:\n"
    "  -c, --compression=auto|none|zlib|gzip   (default auto: detected)\n"
    "  --crc=verify|skip|none  (default verify)\n"
    "  -b, --batch=B           batches of B records (1 to 1000000)\n"
    "  --ragged                with --batch: VarLen as values and row splits\n"
    "  --utf8                  bytes values that are UTF-8 as text (as featc cat\n"
    "                          --utf8); else one code point per byte, the dump\n"
    "                          contract (docs/design.md)\n"
    "  --max-record-size=N     largest record accepted, from any input (K/M/G\n"
    "                          suffixes; default 1G); bounds the memory used\n"
    "  -h, --help              this text\n"
    "\n"
    "exit status: 0 every record parsed; 1 some record failed to parse; 2 a\n"
    "file is unreadable or damaged; 64 usage error.\n";

/* A usage error: one line, and where the help is. */
static int usage(const char *prog, const char *what, const char *arg)
{
    fprintf(stderr, "%s: %s%s%s%s\nTry '%s --help' for more information.\n", prog, what,
            arg != NULL ? " '" : "", arg != NULL ? arg : "", arg != NULL ? "'" : "", prog);
    return 64;
}

/* Calls each(ctx, rec, path) for every record of the files in turn.  A
 * file that cannot be read or framed to its end is reported on stderr and
 * makes the result 2; each returning nonzero stops everything (-1). */
static int for_each_record(const char *prog, const fc_input_options *opt, char **files,
                           int nfiles, int (*each)(void *, const fc_record *, const char *),
                           void *ctx)
{
    int i, rc = 0;
    for (i = 0; i < nfiles; i++) {
        const char *path = files[i];
        fc_input in;
        fc_record rec;
        int s = fc_input_open(&in, path, opt);
        while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK)
            if (each(ctx, &rec, path) != 0) {
                fc_input_close(&in);
                return -1;
            }
        if (s != FC_END) {
            fflush(stdout);
            fprintf(stderr, "%s: %s: %s\n", prog, path, in.err.message);
            rc = 2;
        }
        fc_input_close(&in);
    }
    return rc;
}

/* Every record through the single-record parser. */
typedef struct records_run {
    const driver_kind *k;
    void *msg;
    uint64_t n;
    int failed;
} records_run;

static int print_one(void *ctx, const fc_record *rec, const char *path)
{
    records_run *r = (records_run *)ctx;
    fc_error err;
    fc_error_clear(&err);
    if (r->k->parse(r->msg, rec->data, rec->length, &err) == FC_OK) {
        print_record(r->k, r->n, r->msg);
    } else {
        print_error("record", r->n, rec->index, rec->offset, path, err.message);
        r->failed = 1;
    }
    r->n++;
    return 0;
}

static int run_records(const char *prog, const driver_kind *k, const fc_input_options *opt,
                       char **files, int nfiles)
{
    records_run r;
    int rc;
    r.k = k;
    r.n = 0;
    r.failed = 0;
    r.msg = calloc(1, k->size);
    if (r.msg == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        return 2;
    }
    rc = for_each_record(prog, opt, files, nfiles, print_one, &r);
    free(r.msg);
    return rc != 0 ? rc : r.failed;
}

/* Records in batches of bsize (the last may be smaller), across files. */
typedef struct batches_run {
    const char *prog;
    const driver_kind *k;
    batch_buf b;
    size_t bsize;
    fc_column *cols;
    void *scratch;
    int ragged, failed;
    uint64_t batches;
} batches_run;

static int add_to_batch(void *ctx, const fc_record *rec, const char *path)
{
    batches_run *r = (batches_run *)ctx;
    if (batch_add(&r->b, rec, rec->index, path) != 0) {
        fprintf(stderr, "%s: out of memory\n", r->prog);
        return -1;
    }
    if (r->b.n == r->bsize &&
        batch_flush(r->k, &r->b, r->batches++, r->cols, r->scratch, r->ragged) != 0)
        r->failed = 1;
    return 0;
}

static int run_batches(const char *prog, const driver_kind *k, const fc_input_options *opt,
                       char **files, int nfiles, size_t bsize, int ragged)
{
    unsigned forms = ragged ? FC_BATCH_RAGGED : FC_BATCH_SPARSE;
    size_t ncols = k->md != NULL ? k->md->nfields : k->sd->ncontext + k->sd->nlists;
    size_t need = k->md != NULL ? fc_batch_bind(k->md, NULL, bsize, forms, NULL, 0)
                                : fc_batch_bind_seq(k->sd, NULL, bsize, forms, NULL, 0);
    void *block = need > 0 ? malloc(need) : NULL;
    batches_run r;
    int rc;
    memset(&r, 0, sizeof r);
    r.prog = prog;
    r.k = k;
    r.bsize = bsize;
    r.ragged = ragged;
    r.cols = (fc_column *)calloc(ncols + 1, sizeof *r.cols);
    r.scratch = calloc(1, k->size);
    r.b.offsets = (size_t *)calloc(bsize, sizeof *r.b.offsets);
    r.b.lengths = (size_t *)calloc(bsize, sizeof *r.b.lengths);
    r.b.index = (uint64_t *)calloc(bsize, sizeof *r.b.index);
    r.b.file_offset = (uint64_t *)calloc(bsize, sizeof *r.b.file_offset);
    r.b.path = (const char **)calloc(bsize, sizeof *r.b.path);
    r.b.views = (fc_bytes *)calloc(bsize, sizeof *r.b.views);
    if (r.cols == NULL || r.scratch == NULL || block == NULL || r.b.offsets == NULL ||
        r.b.lengths == NULL || r.b.index == NULL || r.b.file_offset == NULL ||
        r.b.path == NULL || r.b.views == NULL) {
        fprintf(stderr, "%s: out of memory: a batch of %zu records at the spec's bounds needs "
                "%zu bytes\n", prog, bsize, need);
        rc = 2;
    } else {
        if (k->md != NULL)
            fc_batch_bind(k->md, r.cols, bsize, forms, block, need);
        else
            fc_batch_bind_seq(k->sd, r.cols, bsize, forms, block, need);
        rc = for_each_record(prog, opt, files, nfiles, add_to_batch, &r);
        if (rc == -1)
            rc = 2; /* out of memory */
        /* the last, partial batch; or, for input that held no record, one
         * empty batch, as parse_example gives outputs of leading dimension 0 */
        else if ((r.b.n > 0 || (rc == 0 && r.batches == 0)) &&
                 batch_flush(k, &r.b, r.batches++, r.cols, r.scratch, ragged) != 0)
            r.failed = 1;
        if (rc == 0)
            rc = r.failed;
    }
    free(r.b.data);
    free(r.b.offsets);
    free(r.b.lengths);
    free(r.b.index);
    free(r.b.file_offset);
    free(r.b.path);
    free(r.b.views);
    free(block);
    free(r.scratch);
    free(r.cols);
    return rc;
}

enum { OPT_CRC = 0x100, OPT_RAGGED, OPT_MAX_RECORD, OPT_UTF8 };
static const struct option driver_long[] = {
    {"compression", required_argument, NULL, 'c'},
    {"crc", required_argument, NULL, OPT_CRC},
    {"batch", required_argument, NULL, 'b'},
    {"ragged", no_argument, NULL, OPT_RAGGED},
    {"utf8", no_argument, NULL, OPT_UTF8},
    {"max-record-size", required_argument, NULL, OPT_MAX_RECORD},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};

static int driver_run(int argc, char **argv, const driver_kind *kind)
{
    driver_kind with = *kind, *k = &with;
    static char dash[] = "-", *stdin_only[] = {dash, NULL};
    const char *prog = argc > 0 ? argv[0] : "driver";
    fc_input_options opt;
    int nfiles, rc, ragged = 0, o;
    size_t bsize = 0;
    char **files;
    memset(&opt, 0, sizeof opt);
    opt.compression = FC_COMPRESSION_AUTO;
    opt.crc_policy = FC_CRC_VERIFY;
    optind = 1;
    opterr = 0;
    while ((o = getopt_long(argc, argv, ":c:b:h", driver_long, NULL)) != -1) {
        const char *a = argv[optind - 1];
        switch (o) {
        case 'c':
            if (fc_input_parse_compression(optarg, &opt.compression) != 0)
                return usage(prog, "unknown compression", optarg);
            break;
        case OPT_CRC:
            if (fc_input_parse_crc(optarg, &opt.crc_policy) != 0)
                return usage(prog, "unknown CRC policy", optarg);
            break;
        case 'b': {
            char *end;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (optarg[0] < '0' || optarg[0] > '9' || *end != '\0' || v == 0 || v > 1000000)
                return usage(prog, "--batch wants a batch size from 1 to 1000000, not", optarg);
            bsize = (size_t)v;
            break;
        }
        case OPT_RAGGED:
            ragged = 1;
            break;
        case OPT_UTF8:
            with.json |= FC_JSON_UTF8;
            break;
        case OPT_MAX_RECORD:
            if (fc_input_parse_size(optarg, &opt.max_record_size) != 0 || opt.max_record_size == 0)
                return usage(prog, "bad size (a number, with K, M or G)", optarg);
            break;
        case 'h':
            printf(driver_usage, prog);
            return fflush(stdout) != 0 || ferror(stdout) ? 2 : 0;
        case ':':
            return usage(prog, "option needs a value", a);
        default:
            return usage(prog, "unknown option (or a value it does not take)", a);
        }
    }
    files = argv + optind;
    nfiles = argc - optind;
    if (nfiles == 0) {
        if (isatty(STDIN_FILENO))
            return usage(prog, "no input file (standard input is a terminal)", NULL);
        files = stdin_only;
        nfiles = 1;
    }
    if (ragged && bsize == 0)
        return usage(prog, "--ragged goes with --batch", NULL);
    rc = bsize > 0 ? run_batches(prog, k, &opt, files, nfiles, bsize, ragged)
                   : run_records(prog, k, &opt, files, nfiles);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: error writing standard output\n", prog);
        return 2;
    }
    return rc;
}

int fc_driver_main(int argc, char **argv, const fc_message_desc *md)
{
    driver_kind k;
    k.size = md->size;
    k.parse = md->parse;
    k.md = md;
    k.sd = NULL;
    k.json = 0;
    return driver_run(argc, argv, &k);
}

int fc_driver_seq_main(int argc, char **argv, const fc_seq_desc *sd)
{
    driver_kind k;
    k.size = sd->size;
    k.parse = sd->parse;
    k.md = NULL;
    k.sd = sd;
    k.json = 0;
    return driver_run(argc, argv, &k);
}
