/* featc stats: per-feature statistics of TFRecord files, in the manner of
 * TFDV's: presence, values per record, numeric moments, quantiles and
 * histograms, bytes lengths, distinct counts and top values, for Example
 * features, SequenceExample context features and feature lists (frames per
 * record, values per frame).  One pass, memory bounded whatever the size of
 * the input: each key keeps the summaries of sketch.h; past --max-features
 * keys, new keys are counted and left out.  Records are decoded with the
 * fallback decoder (protobuf-c), as featc cat and infer read them.
 *
 * Output: an aligned table (numeric features, bytes features, feature
 * lists); --json, one object (docs/record-tools.md, "featc stats"); --html=FILE, a
 * self-contained report (html.c); the model: model.h; the reports: reports.h.
 *
 * Shards merge: the summaries of every file are merged into one, and
 * `-j N` reads in the thread pool's splits, each gathered apart and merged
 * in file order (a file that fails contributes its records before the
 * failure, as a sequential read would).
 *
 * Exit codes: 0; 1 some record is not an Example or SequenceExample
 * (counted, the first ones reported); 2 a file is unreadable or damaged
 * (the records before the damage are counted, the output says the stats
 * are incomplete); 64 usage error. */
#include "commands/commands.h"
#include "base/progress.h"
#include "reports.h"

#include <glob.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <featc/fc_pool.h>


static const char *const stats_usage =
    "usage: featc stats [options] [FILE...]\n"
    "\n"
    "Reads TFRecord files of tf.train.Example or SequenceExample records (any\n"
    "compression) in one pass and prints, per feature: the types seen, the\n"
    "records where it is present or missing, values per record, numeric\n"
    "min/max/mean/std, zeros, NaN and infinities, quantiles and a histogram,\n"
    "bytes lengths, distinct values and the most frequent values; for\n"
    "SequenceExamples the context features, and for each feature list the\n"
    "frames per record and values per frame.  Several files (or a quoted\n"
    "pattern such as 'data-*-of-*') are summarised together.  Memory is\n"
    "bounded whatever the input's size: quantiles are within 1% of the\n"
    "value's magnitude, distinct counts are exact up to 256 values and then\n"
    "estimated (1.6% standard error), top values carry an error bound.\n"
    "\n"
    "options:\n"
    "  --json                  one JSON object (docs/record-tools.md)\n"
    "  --html=FILE             also write a self-contained HTML report to FILE\n"
    "  --compare=OTHER         with --html: the report sets the records beside\n"
    "                          those of OTHER (repeat for several files), as\n"
    "                          Facets Overview: histograms overlaid, top values\n"
    "                          side by side, the drift validate --against measures\n"
    "  --tfmd-out=FILE         also write the statistics as TFDV does, a binary\n"
    "                          DatasetFeatureStatisticsList (Facets, TFDV, TFX)\n"
    "  --top=N                 top values shown per bytes feature (default 10,\n"
    "                          at most 64)\n"
    "  --max-features=N        keys summarised (default 10000); occurrences of\n"
    "                          further keys are counted and left out\n"
    "  --spec=SPEC             also read every record through the spec's message\n"
    "                          (as featc check --data): how many parse, and the\n"
    "                          errors by text with the first record of each\n"
    "  --message=NAME          the spec's message (default: its first)\n"
    "  --type=auto|example|sequence   how to read payloads (default auto)\n"
    "  -c, --compression=auto|none|zlib|gzip   (default auto)\n"
    "  --crc=verify|skip|none  (default verify)\n"
    "  --max-record-size=N     (default 1G)\n"
    "  --max-memory=N          most memory for decoding one record (default 1G)\n"
    CLI_JOBS_HELP
    PROGRESS_HELP
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 every record summarised; 1 some record is not an Example\n"
    "or SequenceExample (counted and reported), or fails --spec; 2 a file is\n"
    "unreadable or\n"
    "damaged (the records before the damage are summarised); 64 usage error.\n";

enum { OPT_HTML = CLI_OPT_PROGRESS + 1, OPT_TOP, OPT_MAX_FEATURES, OPT_SPEC, OPT_MESSAGE,
       OPT_TFMD_OUT, OPT_COMPARE };

static const struct option stats_long[] = {
    {"json", no_argument, NULL, CLI_OPT_JSON},
    {"html", required_argument, NULL, OPT_HTML},
    {"compare", required_argument, NULL, OPT_COMPARE},
    {"tfmd-out", required_argument, NULL, OPT_TFMD_OUT},
    {"top", required_argument, NULL, OPT_TOP},
    {"max-features", required_argument, NULL, OPT_MAX_FEATURES},
    {"spec", required_argument, NULL, OPT_SPEC},
    {"message", required_argument, NULL, OPT_MESSAGE},
    {"crc", required_argument, NULL, CLI_OPT_CRC},
    CLI_JOBS_OPTION, CLI_TYPE_OPTION, CLI_MEMORY_OPTION, CLI_INPUT_OPTIONS,
    PROGRESS_OPTIONS, CLI_COMMON_OPTIONS, {NULL, 0, NULL, 0}};
static const cli_command stats_cmd = {"stats", stats_usage, "c:hqj:", stats_long};

typedef struct stats_opts {
    fc_input_options read;
    fc_payload_kind type;
    size_t max_memory;
    unsigned jobs;
    int json;
    const char *html;
    const char *tfmd_out; /* --tfmd-out */
    unsigned top;
    size_t max_keys;
    const char *spec_path, *message; /* --spec, --message */
    cli_spec spec;                 /* opened once the options are read */
    int progress;
    int nfiles;
    char **files;
    char **compare; /* --compare's files (ncompare), argc slots */
    int ncompare;
    char **list;    /* the operands with patterns expanded */
    char **copies;  /* the names glob made (freed at the end) */
    int ncopies;
} stats_opts;

/* ------------------------------------------------------------- reading */

static int worse(int a, int b)
{
    return a > b ? a : b;
}

/* What a thread reads with: the fallback decoder, and the scratch of the
 * spec's parse (allocated at the first record). */
typedef struct st_reader {
    cli_decoder d;
    void *msg;
    fc_feature_ref *refs;
} st_reader;

/* One record of file `file`: its verdict under --spec, then its values.
 * 0, or 1 when it is not an Example or SequenceExample. */
static int one_record(const stats_opts *o, st_reader *r, st_stats *s, size_t file,
                      const fc_record *rec)
{
    fc_fallback fb;
    fc_error perr;
    if (o->spec.d != NULL) {
        if (r->msg == NULL) {
            r->msg = calloc(1, o->spec.size);
            r->refs = (fc_feature_ref *)calloc(o->spec.nrefs, sizeof *r->refs);
            if (r->msg == NULL || r->refs == NULL) {
                s->oom = 1;
                return 0;
            }
        }
        fc_error_clear(&perr);
        if (cli_spec_parse(&o->spec, r->msg, r->refs, rec, &perr) == FC_OK) {
            s->spec_parsed++;
        } else {
            s->spec_failed++;
            cli_kinds_note(&s->spec_errors, perr.message, file, rec->index, rec->offset);
        }
    }
    r->d.limit = o->max_memory;
    fc_error_clear(&perr);
    if (cli_decode(&r->d, rec, o->type, 0, &fb, &perr) != FC_OK) {
        st_note_bad(s, file, rec, &perr);
        return 1;
    }
    st_gather(s, &fb);
    return 0;
}

static void reader_free(st_reader *r)
{
    free(r->d.mem);
    free(r->msg);
    free(r->refs);
}

static int run_sequential(const stats_opts *o, st_stats *s, st_file *files, progress *pg)
{
    st_reader r;
    int rc = EXIT_OK, k;
    memset(&r, 0, sizeof r);
    for (k = 0; k < o->nfiles && !s->oom; k++) {
        const char *path = o->files[k];
        fc_input in;
        fc_record rec;
        int st = fc_input_open(&in, path, &o->read);
        while (st == FC_OK && (st = fc_input_next(&in, &rec)) == FC_OK && !s->oom) {
            progress_record(pg, fc_reader_raw_offset(&in.reader));
            files[k].records++;
            if (one_record(o, &r, s, (size_t)k, &rec) != 0)
                rc = worse(rc, EXIT_RECORD_ERR);
        }
        progress_clear(pg);
        progress_file_done(pg, fc_reader_raw_offset(&in.reader));
        files[k].bytes = fc_reader_raw_offset(&in.reader);
        if (st == FC_END) {
            files[k].compression = fc_compression_name(fc_reader_compression(&in.reader));
        } else if (!s->oom) {
            files[k].failed = 1;
            files[k].io_error = in.err.status == FC_ERR_IO;
            snprintf(files[k].error, sizeof files[k].error, "%s", in.err.message);
            fprintf(stderr, "featc: %s: %s\n", path, in.err.message);
            rc = EXIT_DATA_ERR;
        }
        fc_input_close(&in);
    }
    reader_free(&r);
    return rc;
}

typedef struct pool_ctx {
    const stats_opts *o;
} pool_ctx;

static fc_status pool_record(void *ctx, void *state, fc_pool_split *split, const fc_record *rec,
                             fc_error *err)
{
    const stats_opts *o = ((const pool_ctx *)ctx)->o;
    st_stats *s = (st_stats *)split->user;
    if (s == NULL) {
        s = (st_stats *)calloc(1, sizeof *s);
        if (s == NULL) {
            fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, rec->index, rec->offset);
            fc_msg_str(&m, "out of memory");
            return FC_ERR_NO_MEMORY;
        }
        s->max_keys = o->max_keys;
        split->user = s;
    }
    (void)one_record(o, (st_reader *)state, s, split->file, rec);
    if (s->oom) {
        fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, rec->index, rec->offset);
        fc_msg_str(&m, "out of memory");
        return FC_ERR_NO_MEMORY;
    }
    return FC_OK;
}

static void pool_state_free(void *ctx, void *state)
{
    (void)ctx;
    reader_free((st_reader *)state);
}

static int run_pool(const stats_opts *o, st_stats *s, st_file *files, progress *pg)
{
    fc_pool_options po;
    fc_pool_work w;
    fc_pool *pool;
    fc_pool_split *sp;
    fc_error err;
    pool_ctx ctx;
    int rc = EXIT_OK;
    memset(&po, 0, sizeof po);
    po.threads = o->jobs;
    po.ordered = 1;
    po.compression = o->read.compression;
    po.crc_policy = o->read.crc_policy;
    po.max_record_size = o->read.max_record_size;
    po.inflate_ahead = 1; /* each record parsed: a one-file GZIP read gains a core */
    ctx.o = o;
    w.ctx = &ctx;
    w.state_size = sizeof(st_reader);
    w.record = pool_record;
    w.state_free = pool_state_free;
    if (fc_pool_open(&pool, (const char *const *)o->files, (size_t)o->nfiles, &po, &w, &err) !=
        FC_OK) {
        fprintf(stderr, "featc: %s\n", err.message);
        return EXIT_DATA_ERR;
    }
    while (fc_pool_next(pool, &sp) == FC_OK) {
        st_stats *u = (st_stats *)sp->user;
        st_file *fi = &files[sp->file];
        struct stat st;
        uint64_t end = sp->end;
        if (end == UINT64_MAX)
            end = stat(o->files[sp->file], &st) == 0 ? (uint64_t)st.st_size : sp->begin;
        progress_part(pg, end - sp->begin, sp->records);
        if (!fi->failed) {
            fi->records += sp->records;
            fi->bytes = sp->compression == FC_COMPRESSION_NONE ? sp->stop : end;
            fi->compression = fc_compression_name(sp->compression);
            if (u != NULL) {
                st_merge(s, u);
                if (u->other > 0)
                    rc = worse(rc, EXIT_RECORD_ERR);
            }
            if (sp->status != FC_END) {
                fi->failed = 1;
                fi->io_error = sp->err.status == FC_ERR_IO;
                snprintf(fi->error, sizeof fi->error, "%s", sp->err.message);
                progress_clear(pg);
                fprintf(stderr, "featc: %s: %s\n", o->files[sp->file], sp->err.message);
                rc = EXIT_DATA_ERR;
            }
        }
        if (u != NULL) {
            st_free(u);
            free(u);
            sp->user = NULL;
        }
    }
    fc_pool_close(pool);
    return rc;
}

/* ------------------------------------------------------------- options */

static int has_pattern(const char *s)
{
    return strpbrk(s, "*?[") != NULL;
}

/* Operands that name no file but are patterns: expanded (sorted). */
static int expand_patterns(stats_opts *o)
{
    int k, n = 0, cap = 0;
    char **v = NULL;
    for (k = 0; k < o->nfiles; k++) {
        struct stat st;
        glob_t g;
        size_t j;
        const char *a = o->files[k];
        if (!has_pattern(a) || strcmp(a, "-") == 0 || stat(a, &st) == 0) {
            if (n == cap) {
                char **p;
                cap = cap != 0 ? 2 * cap : 16;
                p = (char **)realloc(v, (size_t)cap * sizeof *p);
                if (p == NULL)
                    goto oom;
                v = p;
            }
            v[n++] = (char *)a;
            continue;
        }
        if (glob(a, 0, NULL, &g) != 0) {
            fprintf(stderr, "featc: %s: no file matches this pattern\n", a);
            free(v);
            return EXIT_DATA_ERR;
        }
        for (j = 0; j < g.gl_pathc; j++) {
            char *copy = (char *)malloc(strlen(g.gl_pathv[j]) + 1);
            if (n == cap) {
                char **p;
                cap = cap != 0 ? 2 * cap : 16;
                p = (char **)realloc(v, (size_t)cap * sizeof *p);
                if (p == NULL) {
                    free(copy);
                    globfree(&g);
                    goto oom;
                }
                v = p;
            }
            if (copy == NULL) {
                globfree(&g);
                goto oom;
            }
            strcpy(copy, g.gl_pathv[j]);
            if (o->ncopies % 16 == 0) {
                char **p = (char **)realloc(o->copies, (size_t)(o->ncopies + 16) * sizeof *p);
                if (p == NULL) {
                    free(copy);
                    globfree(&g);
                    goto oom;
                }
                o->copies = p;
            }
            o->copies[o->ncopies++] = copy;
            v[n++] = copy;
        }
        globfree(&g);
    }
    o->list = v;
    o->files = v;
    o->nfiles = n;
    return EXIT_OK;
oom:
    free(v);
    return cli_fail(EXIT_DATA_ERR, "out of memory");
}

static int parse_size_opt(const char *s, unsigned long long lo, unsigned long long hi,
                          unsigned long long *v)
{
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    *v = strtoull(s, &end, 10);
    return *end == '\0' && *v >= lo && *v <= hi ? 0 : -1;
}

static int parse_opts(int argc, char **argv, stats_opts *o, int *done)
{
    int opt, rc;
    unsigned long long v;
    memset(o, 0, sizeof *o);
    o->read.compression = FC_COMPRESSION_AUTO;
    o->read.crc_policy = FC_CRC_VERIFY;
    o->type = FC_PAYLOAD_AUTO;
    o->top = 10;
    o->max_keys = 10000;
    o->jobs = 1;
    *done = 0;
    o->compare = (char **)malloc((size_t)(argc > 0 ? argc : 1) * sizeof *o->compare);
    if (o->compare == NULL)
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    while ((opt = cli_next_option(&stats_cmd, argc, argv, &rc)) != 0) {
        int r;
        if (cli_input_option(&stats_cmd, opt, optarg, &o->read, &o->type, &o->max_memory, &r)) {
            if (r != 0)
                return r;
        } else if (opt == CLI_OPT_JSON) {
            o->json = 1;
        } else if (opt == OPT_HTML) {
            o->html = optarg;
        } else if (opt == OPT_COMPARE) {
            o->compare[o->ncompare++] = optarg; /* (at most argc of them) */
        } else if (opt == OPT_TFMD_OUT) {
            o->tfmd_out = optarg;
        } else if (opt == OPT_TOP) {
            if (parse_size_opt(optarg, 0, SK_TOP, &v) != 0)
                return cli_usage_error(&stats_cmd, "--top takes 0 to %d, not '%s'", SK_TOP,
                                       optarg);
            o->top = (unsigned)v;
        } else if (opt == OPT_MAX_FEATURES) {
            if (parse_size_opt(optarg, 1, 1000000, &v) != 0)
                return cli_usage_error(&stats_cmd, "--max-features takes 1 to 1000000, not '%s'",
                                       optarg);
            o->max_keys = (size_t)v;
        } else if (opt == OPT_SPEC) {
            o->spec_path = optarg;
        } else if (opt == OPT_MESSAGE) {
            o->message = optarg;
        } else if (opt == 'j') {
            if (cli_parse_jobs(optarg, &o->jobs) != 0)
                return cli_usage_error(&stats_cmd, "-j takes 0 (one per CPU) or 1 to 1024 threads, not '%s'",
                                       optarg);
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
    if (o->message != NULL && o->spec_path == NULL)
        return cli_usage_error(&stats_cmd, "--message names a message of --spec");
    if (o->ncompare > 0 && o->html == NULL)
        return cli_usage_error(&stats_cmd, "--compare draws the comparison in the --html report");
    rc = cli_operands(&stats_cmd, argc, argv, &o->files, &o->nfiles);
    if (rc != 0)
        return rc;
    return expand_patterns(o);
}

/* A report written whole to memory, then to path through a temporary file
 * (an error leaves no partial file). */
static int write_report(const char *path, int (*write)(FILE *, const st_stats *, const st_report *),
                        const st_stats *s, const st_report *report)
{
    char *text = NULL;
    size_t len = 0;
    int rc;
    FILE *t = open_memstream(&text, &len);
    int bad = t == NULL || write(t, s, report) != 0;
    if (t != NULL && (ferror(t) | fclose(t)) != 0)
        bad = 1;
    rc = bad ? cli_fail(EXIT_DATA_ERR, "out of memory") : cli_write_file(path, text, len);
    free(text);
    return rc;
}

/* Reads the files of o into s (files: a slot each, filled in): EXIT_OK,
 * or the worst status of the reading. */
static int read_dataset(const stats_opts *o, st_stats *s, st_file *files)
{
    progress pg;
    int k, rc;
    s->max_keys = o->max_keys;
    for (k = 0; k < o->nfiles; k++) {
        files[k].path = o->files[k];
        files[k].compression = "?";
    }
    progress_start(&pg, "stats", o->files, o->nfiles, o->progress, 0);
    if (o->jobs > 1)
        rc = run_pool(o, s, files, &pg);
    else
        rc = run_sequential(o, s, files, &pg);
    progress_end(&pg);
    return rc;
}

/* The notes on stderr of what a dataset's reading met: records that are
 * not Examples, files that failed. */
static void reading_notes(const st_stats *s, const st_file *files, int nfiles)
{
    int k, failed = 0;
    for (k = 0; k < nfiles; k++)
        failed += files[k].failed;
    if (s->other > 0) {
        size_t i;
        fprintf(stderr, "featc: stats: %llu record%s not an Example or SequenceExample%s:\n",
                (unsigned long long)s->other, s->other == 1 ? " is" : "s are",
                s->other > s->nbad ? " (the first ones)" : "");
        for (i = 0; i < s->nbad; i++)
            fprintf(stderr, "featc: %s: record %llu (offset %llu): %s\n", files[s->bad[i].file].path,
                    (unsigned long long)s->bad[i].record, (unsigned long long)s->bad[i].offset,
                    s->bad[i].message);
    }
    if (failed > 0)
        fprintf(stderr, "featc: stats: incomplete: %d of %d files failed; the records read "
                        "before each failure are summarised\n", failed, nfiles);
}

/* No file could be read (cannot open, or a read error before the first
 * record): the errors are on stderr, and no report of zero records is
 * made. */
static int none_read(const st_stats *s, const st_file *files, int nfiles)
{
    int k;
    for (k = 0; k < nfiles && files[k].io_error; k++)
        ;
    return k == nfiles && s->records == 0 && s->other == 0;
}

/* --compare: the other dataset read into s2 (files2: a slot each), and
 * the report's other fields set. */
static int read_other(const stats_opts *o, st_stats *s2, st_file *files2, st_report *report,
                      st_report *report2)
{
    stats_opts o2 = *o;
    int rc;
    o2.files = o->compare;
    o2.nfiles = o->ncompare;
    rc = read_dataset(&o2, s2, files2);
    if (s2->oom)
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    st_sort(s2);
    reading_notes(s2, files2, o2.nfiles);
    if (none_read(s2, files2, o2.nfiles))
        return worse(rc, EXIT_DATA_ERR);
    *report2 = *report;
    report2->files = files2;
    report2->nfiles = (size_t)o2.nfiles;
    report2->title = o2.nfiles == 1 ? o2.files[0] : "the other TFRecord files";
    report->other = s2;
    report->other_report = report2;
    return rc;
}

int cmd_stats(int argc, char **argv)
{
    stats_opts o;
    st_stats s, s2;
    st_file *files, *files2 = NULL;
    st_report report, report2;
    int done, rc = parse_opts(argc, argv, &o, &done), k;
    memset(&s, 0, sizeof s);
    memset(&s2, 0, sizeof s2);
    memset(&report, 0, sizeof report);
    files = NULL;
    if (rc != 0 || done)
        goto out;
    if (o.spec_path != NULL && (rc = cli_spec_open(&o.spec, o.spec_path, o.message)) != 0)
        goto out;
    files = (st_file *)calloc((size_t)o.nfiles, sizeof *files);
    files2 = (st_file *)calloc((size_t)o.ncompare + 1, sizeof *files2);
    if (files == NULL || files2 == NULL) {
        rc = cli_fail(EXIT_DATA_ERR, "out of memory");
        goto out;
    }
    rc = read_dataset(&o, &s, files);
    if (s.oom) {
        rc = cli_fail(EXIT_DATA_ERR, "out of memory");
        goto out;
    }
    st_sort(&s);
    if (s.spec_failed > 0)
        rc = worse(rc, EXIT_RECORD_ERR);
    if (none_read(&s, files, o.nfiles)) {
        rc = worse(rc, EXIT_DATA_ERR);
        goto out;
    }
    report.files = files;
    report.nfiles = (size_t)o.nfiles;
    report.title = o.nfiles == 1 ? o.files[0] : "TFRecord files";
    report.spec_path = o.spec_path;
    report.spec = o.spec.d != NULL ? &o.spec : NULL;
    report.top = o.top;
    if (o.json) {
        st_print_json(stdout, &s, &report);
    } else {
        int oom = 0;
        st_print_table(stdout, &s, &report, &oom);
        if (oom) {
            rc = cli_fail(EXIT_DATA_ERR, "out of memory");
            goto out;
        }
    }
    reading_notes(&s, files, o.nfiles);
    if (o.ncompare > 0) {
        int r2 = read_other(&o, &s2, files2, &report, &report2);
        rc = worse(rc, r2);
        if (r2 == EXIT_DATA_ERR && report.other == NULL)
            goto out;
    }
    if (o.html != NULL)
        rc = worse(rc, write_report(o.html, o.ncompare > 0 ? st_write_compare_html : st_write_html,
                                    &s, &report));
    if (o.tfmd_out != NULL)
        rc = worse(rc, write_report(o.tfmd_out, st_write_tfdv, &s, &report));
    if (fflush(stdout) != 0 || ferror(stdout))
        rc = worse(rc, cli_fail(EXIT_DATA_ERR, "error writing standard output"));
out:
    st_free(&s);
    st_free(&s2);
    free(files);
    free(files2);
    if (o.spec.d != NULL)
        cli_spec_close(&o.spec);
    for (k = 0; k < o.ncopies; k++)
        free(o.copies[k]);
    free(o.copies);
    free(o.list);
    free(o.compare);
    return rc;
}
