/* featc index: writes and checks index files (fc_index.h: DALI's
 * "offset size" lines).
 *
 * Exit codes: 0 every index written or found right; 1 (--check) an index
 * does not match its file; 2 a file or index could not be read, or a file
 * is damaged or compressed; 64 usage error. */
#include "commands.h"
#include "base/progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <featc/fc_pool.h>

static const char *const index_usage =
    "usage: featc index [options] FILE...\n"
    "\n"
    "Writes the index of each TFRecord file to FILE.idx: one line per record,\n"
    "\"offset size\", the byte offset of its header and its size with the 16\n"
    "framing bytes, as NVIDIA DALI's tfrecord2idx and the Python tfrecord\n"
    "package write and read it.  Both CRCs of every record are verified; a\n"
    "damaged file gets no index.  For a GZIP file, FILE.members lists the gzip\n"
    "members that start at a record (\"offset stream_offset first_record\"), the\n"
    "places such a file can be read from; a ZLIB file has none.\n"
    "featc cat, count and verify take --index, --split, --range and --records.\n"
    "\n"
    "options:\n"
    "  -o, --output=IDX        the index file (one FILE only; - for standard\n"
    "                          output); default FILE.idx (FILE.members)\n"
    "  --check                 check existing indexes against their files\n"
    "                          instead of writing them: every record where its\n"
    "                          line says, and no line or record left over\n"
    "  --index=IDX             with --check: the index to check (one FILE\n"
    "                          only); default FILE.idx (FILE.members)\n"
    "  -c, --compression=auto|none|gzip   (default auto; ZLIB is an error)\n"
    "  --max-record-size=N     (default 1G)\n"
    "  -j, --jobs=N            read each uncompressed file with N threads\n"
    PROGRESS_HELP
    "  -h, --help              this text\n"
    "  --version               featc's version\n"
    "\n"
    "exit status: 0 indexes written or right; 1 (--check) an index does not\n"
    "match its file; 2 a file is unreadable, damaged or ZLIB; 64 usage error.\n";

static const struct option index_long[] = {
    {"output", required_argument, NULL, 'o'}, CLI_JOBS_OPTION,
    {"check", no_argument, NULL, CLI_OPT_CHECK},
    {"index", required_argument, NULL, CLI_OPT_INDEX},
    CLI_INPUT_OPTIONS, PROGRESS_OPTIONS, CLI_COMMON_OPTIONS, {NULL, 0, NULL, 0}};

static const cli_command index_cmd = {"index", index_usage, "o:j:c:qh", index_long};

/* The progress of the files being indexed (written, not checked). */
static progress g_progress;


/* A compressed file other than GZIP has no index: the exit status, after
 * saying why. */
static int not_indexable(const fc_input *in, const char *path)
{
    fprintf(stderr,
            "featc: %s: this file is %s, one stream that can only be read from its "
            "first byte: an index (FILE.idx) is of an uncompressed file, a member index "
            "(FILE.members) of a GZIP one\n",
            path, fc_compression_name(fc_reader_compression(&in->reader)));
    return EXIT_DATA_ERR;
}

/* Writes text to out ("-": stdout) or the default name; the exit status. */
static int put_index(const char *path, const char *out, const char *suffix, const char *text,
                     size_t len)
{
    int rc;
    char *target;
    if (out != NULL && strcmp(out, "-") == 0) {
        if (len > 0 && fwrite(text, 1, len, stdout) != len)
            return cli_fail(EXIT_DATA_ERR, "error writing standard output");
        return EXIT_OK;
    }
    target = out != NULL ? NULL : fc_input_sibling(path, suffix);
    if (out == NULL && target == NULL)
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    rc = cli_write_file(out != NULL ? out : target, text != NULL ? text : "", len);
    free(target);
    return rc;
}

/* The member index of a GZIP file mapped at map (guard: its guard), as text
 * (allocated), or NULL after the error is printed. */
static char *members_text(const char *path, const fc_mapped_file *map, const fc_map_guard *guard,
                          const fc_input_options *read, size_t *len, size_t *count, int *rc)
{
    fc_gzip_member *m = NULL;
    size_t n = 0, i, at = 0;
    fc_error err;
    char *text;
    fc_error_clear(&err);
    if (fc_input_scan_members_mem(path, map->data, map->size, guard, read, &m, &n, &err) !=
        FC_OK) {
        fprintf(stderr, "featc: %s: %s; no index written\n", path, err.message);
        *rc = EXIT_DATA_ERR;
        return NULL;
    }
    text = (char *)malloc(n * FC_MEMBERS_LINE_MAX + 1);
    if (text == NULL) {
        free(m);
        *rc = cli_fail(EXIT_DATA_ERR, "%s: out of memory", path);
        return NULL;
    }
    for (i = 0; i < n; i++)
        at += fc_members_line(text + at, FC_MEMBERS_LINE_MAX, &m[i]);
    free(m);
    *len = at;
    *count = n;
    return text;
}

/* Index lines as they are written: a whole file's, or (index -j) a
 * split's. */
typedef struct split_lines {
    char *text;
    size_t len, cap;
} split_lines;

/* Appends the line of rec; 0, or -1 out of memory. */
static int add_line(split_lines *l, const fc_record *rec)
{
    fc_index_entry e;
    if (l->cap - l->len < FC_INDEX_LINE_MAX) {
        size_t cap = l->cap == 0 ? 65536 : l->cap * 2;
        char *bigger = (char *)realloc(l->text, cap);
        if (bigger == NULL)
            return -1;
        l->text = bigger;
        l->cap = cap;
    }
    e.offset = rec->offset;
    e.size = (uint64_t)rec->length + FC_RECORD_OVERHEAD;
    l->len += fc_index_line(l->text + l->len, l->cap - l->len, &e);
    return 0;
}

static int write_index(const char *path, const char *out, const fc_input_options *read)
{
    fc_input in;
    fc_record rec;
    fc_status s;
    char *text;
    size_t len = 0;
    split_lines lines = {NULL, 0, 0};
    int rc;
    /* one open: the records are read from the map the compression was
     * found in (a second open could find the file changed in between) */
    if (fc_input_open(&in, path, read) != FC_OK) {
        fprintf(stderr, "featc: %s: %s\n", path, in.err.message);
        fc_input_close(&in);
        return EXIT_DATA_ERR;
    }
    if (fc_reader_compression(&in.reader) == FC_COMPRESSION_GZIP) {
        size_t count;
        fc_mapped_file map;
        fc_map_guard *guard = NULL;
        fc_error err;
        memset(&map, 0, sizeof map);
        /* the members found over a map of the file already open */
        if (fc_input_map_fd(in.fd, &map, &guard, &err) != FC_OK) {
            fprintf(stderr, "featc: %s: %s\n", path, err.message);
            fc_input_close(&in);
            return EXIT_DATA_ERR;
        }
        fc_input_close(&in);
        text = members_text(path, &map, guard, read, &len, &count, &rc);
        fc_input_unmap(&map, guard);
        progress_clear(&g_progress);
        if (text == NULL)
            return rc;
        rc = put_index(path, out, ".members", text, len);
        free(text);
        return rc;
    }
    if (fc_reader_compression(&in.reader) != FC_COMPRESSION_NONE) {
        rc = not_indexable(&in, path);
        fc_input_close(&in);
        return rc;
    }
    while ((s = fc_input_next(&in, &rec)) == FC_OK) {
        progress_record(&g_progress, fc_reader_raw_offset(&in.reader));
        if (add_line(&lines, &rec) != 0) {
            free(lines.text);
            fc_input_close(&in);
            return cli_fail(EXIT_DATA_ERR, "%s: out of memory", path);
        }
    }
    progress_clear(&g_progress);
    progress_file_done(&g_progress, fc_reader_raw_offset(&in.reader));
    if (s != FC_END) {
        fprintf(stderr, "featc: %s: %s; no index written\n", path, in.err.message);
        free(lines.text);
        fc_input_close(&in);
        return EXIT_DATA_ERR;
    }
    fc_input_close(&in);
    rc = put_index(path, out, ".idx", lines.text, lines.len);
    free(lines.text);
    return rc;
}

/* --check of a GZIP file's member index against a scan of its map. */
static int check_members(const char *path, const fc_mapped_file *map, const fc_map_guard *guard,
                         const char *idx, const fc_input_options *read)
{
    char *target = idx != NULL ? NULL : fc_input_sibling(path, ".members");
    const char *name = idx != NULL ? idx : target;
    fc_gzip_member *m = NULL;
    size_t n = 0, len = 0, count = 0;
    fc_error err;
    char *want;
    int rc = EXIT_OK;
    if (name == NULL)
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    fc_error_clear(&err);
    if (fc_input_load_members(name, &m, &n, &err) != FC_OK) {
        printf("%s: FAILED: %s\n", path, err.message);
        free(target);
        return EXIT_DATA_ERR;
    }
    want = members_text(path, map, guard, read, &len, &count, &rc);
    if (want != NULL) {
        size_t i, at = 0;
        for (i = 0; i < n && i < count; i++) {
            char line[FC_MEMBERS_LINE_MAX];
            size_t k = fc_members_line(line, sizeof line, &m[i]);
            const char *nl = (const char *)memchr(want + at, '\n', len - at);
            size_t wk = (size_t)(nl - (want + at)) + 1;
            if (k != wk || memcmp(line, want + at, k) != 0) {
                printf("%s: member index %s FAILED: line %zu says %.*s; the file's member %zu "
                       "is %.*s\n",
                       path, name, i + 1, (int)(k - 1), line, i, (int)(wk - 1), want + at);
                rc = EXIT_RECORD_ERR;
                break;
            }
            at += wk;
        }
        if (rc == EXIT_OK && n != count) {
            printf("%s: member index %s FAILED: it lists %zu members that start at a record, "
                   "the file has %zu\n",
                   path, name, n, count);
            rc = EXIT_RECORD_ERR;
        }
        if (rc == EXIT_OK)
            printf("%s: member index %s OK: %zu member%s\n", path, name, n, n == 1 ? "" : "s");
    }
    free(want);
    free(m);
    free(target);
    return rc;
}

static int check_index(const char *path, const char *idx, const fc_input_options *read)
{
    fc_input in;
    fc_mapped_file map;
    fc_map_guard *guard = NULL;
    fc_index_entry *entries = NULL;
    size_t n = 0;
    fc_error err;
    fc_status s;
    char *target = idx != NULL ? NULL : fc_input_sibling(path, ".idx");
    const char *name = idx != NULL ? idx : target;
    int rc;
    if (name == NULL)
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    /* one open: the file mapped, what it is and its records read from the
     * map (the check moves about the file, and reads records of any size in
     * place; a whole file read by fc_input_open goes through a buffer that
     * only fc_input_next grows) */
    memset(&map, 0, sizeof map);
    fc_error_clear(&err);
    if (fc_input_map(path, &map, &guard, &err) != FC_OK) {
        fprintf(stderr, "featc: %s: %s\n", path, err.message);
        free(target);
        return EXIT_DATA_ERR;
    }
    if (fc_input_open_mem(&in, path, map.data, map.size, read) == FC_OK &&
        fc_reader_compression(&in.reader) == FC_COMPRESSION_GZIP) {
        fc_input_close(&in);
        free(target);
        rc = check_members(path, &map, guard, idx, read);
        fc_input_unmap(&map, guard);
        return rc;
    }
    fc_input_close(&in);
    if (fc_input_load_index(name, &entries, &n, &err) != FC_OK) {
        printf("%s: FAILED: %s\n", path, err.message);
        fc_input_unmap(&map, guard);
        free(target);
        return EXIT_DATA_ERR;
    }
    rc = 0;
    if (fc_input_open_mem(&in, path, map.data, map.size, read) != FC_OK) {
        fprintf(stderr, "featc: %s: %s\n", path, in.err.message);
        rc = EXIT_DATA_ERR;
    } else if (fc_reader_compression(&in.reader) != FC_COMPRESSION_NONE) {
        rc = not_indexable(&in, path);
    }
    if (rc == 0) {
        uint64_t gone;
        s = fc_index_verify(&in.reader, entries, n, &err);
        if (fc_input_map_shrank(guard, &gone))
            s = fc_input_changed_error(&err, path, (uint64_t)map.size, gone);
        if (s == FC_OK) {
            printf("%s: index %s OK: %zu record%s\n", path, name, n, n == 1 ? "" : "s");
        } else if (s == FC_ERR_INDEX) {
            printf("%s: index %s FAILED: %s\n", path, name, err.message);
            rc = EXIT_RECORD_ERR;
        } else {
            printf("%s: FAILED: %s\n", path, err.message);
            rc = EXIT_DATA_ERR;
        }
    }
    fc_input_close(&in);
    fc_input_unmap(&map, guard);
    free(entries);
    free(target);
    return rc;
}

static fc_status index_record(void *ctx, void *state, fc_pool_split *split, const fc_record *rec,
                              fc_error *err)
{
    split_lines *l = (split_lines *)split->user;
    (void)ctx;
    (void)state;
    if (l == NULL && (l = (split_lines *)calloc(1, sizeof *l)) != NULL)
        split->user = l;
    if (l == NULL || add_line(l, rec) != 0) {
        fc_msg m = fc_error_begin(err, FC_ERR_NO_MEMORY, rec->index, rec->offset);
        fc_msg_str(&m, "out of memory");
        return FC_ERR_NO_MEMORY;
    }
    return FC_OK;
}

/* The uncompressed files among files, indexed with `jobs` threads; the
 * others are left to the caller (done[k] is 0 for them).  The worst
 * exit status. */
static int index_pool(char **files, int nfiles, const fc_input_options *read, unsigned jobs,
                      int *done)
{
    const char **plain = (const char **)calloc((size_t)nfiles + 1, sizeof *plain);
    int *which = (int *)calloc((size_t)nfiles + 1, sizeof *which);
    int k, np = 0, worst = EXIT_OK;
    fc_pool_options po;
    fc_pool_work w;
    fc_pool *pool;
    fc_pool_split *sp;
    fc_error err, failed;
    char *text = NULL;
    size_t len = 0;
    if (plain == NULL || which == NULL) {
        free(plain);
        free(which);
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    }
    for (k = 0; k < nfiles; k++) {
        fc_input in;
        if (strcmp(files[k], "-") != 0 && fc_input_open(&in, files[k], read) == FC_OK &&
            fc_reader_compression(&in.reader) == FC_COMPRESSION_NONE && in.regular) {
            which[np] = k;
            plain[np++] = files[k];
            done[k] = 1;
        }
        fc_input_close(&in);
    }
    memset(&po, 0, sizeof po);
    po.threads = jobs;
    po.ordered = 1;
    po.compression = FC_COMPRESSION_NONE;
    po.crc_policy = FC_CRC_VERIFY;
    po.max_record_size = read->max_record_size;
    memset(&w, 0, sizeof w);
    w.record = index_record;
    fc_error_clear(&failed);
    if (np > 0 && fc_pool_open(&pool, plain, (size_t)np, &po, &w, &err) != FC_OK) {
        fprintf(stderr, "featc: %s\n", err.message);
        free(plain);
        free(which);
        return EXIT_DATA_ERR;
    }
    while (np > 0 && fc_pool_next(pool, &sp) == FC_OK) {
        split_lines *l = (split_lines *)sp->user;
        const char *path = plain[sp->file];
        progress_part(&g_progress, sp->end - sp->begin, sp->records);
        if (sp->split == 0) {
            free(text);
            text = NULL;
            len = 0;
            fc_error_clear(&failed);
        }
        if (failed.status == FC_OK && sp->status != FC_END)
            failed = sp->err;
        if (failed.status == FC_OK && l != NULL && l->len > 0) {
            char *bigger = (char *)realloc(text, len + l->len);
            if (bigger == NULL) {
                fc_msg m = fc_error_begin(&failed, FC_ERR_NO_MEMORY, FC_NO_INDEX, FC_NO_INDEX);
                fc_msg_str(&m, "out of memory");
            } else {
                text = bigger;
                memcpy(text + len, l->text, l->len);
                len += l->len;
            }
        }
        if (l != NULL) {
            free(l->text);
            free(l);
            sp->user = NULL;
        }
        if (sp->split + 1 < sp->splits)
            continue;
        progress_clear(&g_progress);
        if (failed.status != FC_OK) {
            fprintf(stderr, "featc: %s: %s; no index written\n", path, failed.message);
            if (worst < EXIT_DATA_ERR)
                worst = EXIT_DATA_ERR;
        } else {
            int rc = put_index(path, NULL, ".idx", text, len);
            if (rc > worst)
                worst = rc;
        }
    }
    if (np > 0)
        fc_pool_close(pool);
    free(text);
    free(plain);
    free(which);
    return worst;
}

int cmd_index(int argc, char **argv)
{
    fc_input_options read;
    const char *out = NULL, *idx = NULL;
    char **files;
    int nfiles, check = 0, opt, rc, k, worst = EXIT_OK, *done, mode = PROGRESS_AUTO;
    unsigned jobs = 0;
    memset(&read, 0, sizeof read);
    read.compression = FC_COMPRESSION_AUTO;
    read.crc_policy = FC_CRC_VERIFY;
    while ((opt = cli_next_option(&index_cmd, argc, argv, &rc)) != 0) {
        int r;
        if (cli_input_option(&index_cmd, opt, optarg, &read, NULL, NULL, &r)) {
            if (r != 0)
                return r;
        } else if (opt == 'o') {
            out = optarg;
        } else if (opt == CLI_OPT_CHECK) {
            check = 1;
        } else if (opt == CLI_OPT_INDEX) {
            idx = optarg;
        } else if (opt == 'q') {
            mode = PROGRESS_QUIET;
        } else if (opt == CLI_OPT_PROGRESS) {
            mode = PROGRESS_FORCE;
        } else if (opt == 'j') {
            if (cli_parse_jobs(optarg, &jobs) != 0)
                return cli_usage_error(&index_cmd, "bad number of jobs '%s' (0 for one per CPU, or 1 to 1024)", optarg);
        }
    }
    if (rc >= 0)
        return rc;
    if (optind >= argc)
        return cli_usage_error(&index_cmd, "no input file (an index is written beside its file)");
    files = argv + optind;
    nfiles = argc - optind;
    if (out != NULL && (check || nfiles != 1))
        return cli_usage_error(&index_cmd, check ? "--output does not go with --check (name "
                                                   "the index to check with --index)"
                                                 : "--output takes one FILE");
    if (idx != NULL && (!check || nfiles != 1))
        return cli_usage_error(&index_cmd, !check ? "--index goes with --check (write to a "
                                                    "named index with --output)"
                                                  : "--index takes one FILE");
    for (k = 0; k < nfiles; k++)
        if (strcmp(files[k], "-") == 0 && !check && out == NULL)
            return cli_usage_error(&index_cmd, "standard input has no FILE.idx: give --output");
    done = (int *)calloc((size_t)nfiles, sizeof *done);
    if (done == NULL)
        return cli_fail(EXIT_DATA_ERR, "out of memory");
    progress_start(&g_progress, "index", files, nfiles, check ? PROGRESS_QUIET : mode, 0);
    if (jobs > 1 && !check && out == NULL)
        worst = index_pool(files, nfiles, &read, jobs, done);
    for (k = 0; k < nfiles; k++) {
        if (done[k])
            continue;
        rc = check ? check_index(files[k], idx, &read) : write_index(files[k], out, &read);
        if (rc > worst && rc != EXIT_USAGE_ERR)
            worst = rc;
    }
    progress_end(&g_progress);
    free(done);
    if (fflush(stdout) != 0 || ferror(stdout))
        return cli_fail(EXIT_DATA_ERR, "error writing standard output");
    return worst;
}
