/* featc check SPEC --data FILE...: the records of TFRecord files read
 * through a spec's message without generating or building C.  The
 * compiler describes the message in memory (featc_dynamic.h) and the
 * runtime's general parse path reads each record by those descriptors:
 * the values and errors of the generated parser (tests/cli/check_data.py
 * compares the two over the corpus and random records).
 *
 * Output: each failing record's error, `PATH: record I (offset O): TEXT`
 * (TensorFlow's text first), at most --max-errors of them, then a summary:
 * records read and failed per file, and the distinct errors by count.
 * --json instead prints every record as the generated JSON driver does
 * (`featc compile --driver`), byte for byte.
 *
 * Memory: the message struct and the parse scratch, allocated once; the
 * parse allocates nothing. */
#include "tools.h"
#include "progress.h"

#include <stdlib.h>
#include <string.h>

#include <featc/fc_driver.h>
#include <featc/featc_dynamic.h>

#define DISTINCT_KEPT 16

typedef struct error_kind {
    char text[FC_ERROR_MSG_SIZE];
    uint64_t count;
    const char *path;      /* its first record */
    uint64_t index, offset;
} error_kind;

typedef struct checker {
    const tools_check_opts *o;
    featc_dynamic *d;
    const fc_message_desc *md;
    const fc_seq_desc *sd;
    void *msg;
    fc_feature_ref *refs;
    uint64_t records, failed, shown, n;
    error_kind kinds[DISTINCT_KEPT];
    size_t nkinds;
    uint64_t other_kinds; /* failures of kinds past DISTINCT_KEPT */
} checker;

static void note_kind(checker *c, const char *text, const char *path, const fc_record *rec)
{
    size_t i;
    for (i = 0; i < c->nkinds; i++)
        if (strcmp(c->kinds[i].text, text) == 0) {
            c->kinds[i].count++;
            return;
        }
    if (c->nkinds == DISTINCT_KEPT) {
        c->other_kinds++;
        return;
    }
    snprintf(c->kinds[c->nkinds].text, sizeof c->kinds[c->nkinds].text, "%s", text);
    c->kinds[c->nkinds].count = 1;
    c->kinds[c->nkinds].path = path;
    c->kinds[c->nkinds].index = rec->index;
    c->kinds[c->nkinds].offset = rec->offset;
    c->nkinds++;
}

static int parse(checker *c, const fc_record *rec, fc_error *err)
{
    if (c->md != NULL)
        return fc_ex_parse_desc(c->md, c->msg, rec->data, rec->length, featc_dynamic_lookup,
                                c->d, c->refs, err);
    return fc_seq_parse(c->sd, c->msg, rec->data, rec->length, c->refs, err);
}

/* One record: printed (--json) or judged. */
static void check_record(checker *c, const fc_record *rec, const char *path)
{
    fc_error err;
    int ok;
    fc_error_clear(&err);
    /* as the generated driver: one struct, not cleared between records */
    ok = parse(c, rec, &err) == FC_OK;
    c->records++;
    if (c->o->json) {
        /* the dump contract, as fc_driver_main prints it */
        if (ok) {
            printf("{\"record\":%llu,", (unsigned long long)c->n);
            if (c->md != NULL) {
                fputs("\"features\":", stdout);
                fc_json_features(stdout, c->md, c->msg);
            } else {
                fputs("\"context\":", stdout);
                fc_json_context(stdout, c->sd, c->msg);
                fputs(",\"feature_lists\":", stdout);
                fc_json_feature_lists(stdout, c->sd, c->msg);
            }
            fputs("}\n", stdout);
        } else {
            char text[FC_ERROR_MSG_SIZE + 256];
            snprintf(text, sizeof text, "record %llu (offset %llu of %s): %s",
                     (unsigned long long)rec->index, (unsigned long long)rec->offset, path,
                     err.message);
            printf("{\"record\":%llu,\"error\":", (unsigned long long)c->n);
            fc_json_string(stdout, text, strlen(text), 1);
            fputs("}\n", stdout);
        }
    }
    c->n++;
    if (ok)
        return;
    c->failed++;
    note_kind(c, err.message, path, rec);
    if (!c->o->json && c->shown < c->o->max_errors) {
        c->shown++;
        printf("%s: record %llu (offset %llu): %s\n", path, (unsigned long long)rec->index,
               (unsigned long long)rec->offset, err.message);
    }
}

static int by_count(const void *a, const void *b)
{
    const error_kind *x = (const error_kind *)a, *y = (const error_kind *)b;
    return x->count != y->count ? (x->count > y->count ? -1 : 1) : strcmp(x->text, y->text);
}

int tools_check_data(const char *spec_name, const char *src, size_t len, char **files, int nfiles,
                     const tools_check_opts *o)
{
    featc_options fo = FEATC_OPTIONS_INIT;
    checker c;
    progress pg;
    int rc = EXIT_OK, k;
    memset(&c, 0, sizeof c);
    c.o = o;
    fo.spec_name = spec_name;
    fo.diag = cli_print_diagnostic;
    if (featc_dynamic_open(src, len, &fo, o->message, &c.d) != 0)
        return EXIT_RECORD_ERR;
    c.md = featc_dynamic_example(c.d);
    c.sd = featc_dynamic_sequence(c.d);
    c.msg = calloc(1, featc_dynamic_size(c.d));
    c.refs = (fc_feature_ref *)calloc(featc_dynamic_refs(c.d), sizeof *c.refs);
    if (c.msg == NULL || c.refs == NULL) {
        rc = cli_fail(EXIT_DATA_ERR, "out of memory: the message of %s needs %zu bytes",
                      spec_name, featc_dynamic_size(c.d));
        goto out;
    }
    progress_start(&pg, "check", files, nfiles, o->progress, o->json);
    for (k = 0; k < nfiles; k++) {
        const char *path = files[k];
        fc_input in;
        fc_record rec;
        uint64_t before = c.records, failed_before = c.failed;
        int s = fc_input_open(&in, path, &o->read);
        while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK) {
            progress_record(&pg, fc_reader_raw_offset(&in.reader));
            if (!o->json && c.shown < o->max_errors)
                progress_clear(&pg);
            check_record(&c, &rec, path);
        }
        progress_clear(&pg);
        progress_file_done(&pg, fc_reader_raw_offset(&in.reader));
        if (s != FC_END) {
            fflush(stdout);
            fprintf(stderr, "featc: %s: %s\n", path, in.err.message);
            rc = EXIT_DATA_ERR;
        }
        if (!o->json)
            printf("%s: %llu record%s, %llu failed%s\n", path,
                   (unsigned long long)(c.records - before), c.records - before == 1 ? "" : "s",
                   (unsigned long long)(c.failed - failed_before),
                   s != FC_END ? " (the file is damaged: read up to the damage)" : "");
        fc_input_close(&in);
    }
    progress_end(&pg);
    if (!o->json) {
        size_t i;
        if (nfiles > 1)
            printf("total: %llu records in %d files, %llu failed\n",
                   (unsigned long long)c.records, nfiles, (unsigned long long)c.failed);
        if (c.failed > c.shown)
            printf("(%llu errors not shown: --max-errors=%llu)\n",
                   (unsigned long long)(c.failed - c.shown), (unsigned long long)o->max_errors);
        if (c.nkinds > 0) {
            qsort(c.kinds, c.nkinds, sizeof *c.kinds, by_count);
            printf("errors by text:\n");
            for (i = 0; i < c.nkinds; i++)
                printf("%10llu  %s (first: %s record %llu)\n",
                       (unsigned long long)c.kinds[i].count, c.kinds[i].text, c.kinds[i].path,
                       (unsigned long long)c.kinds[i].index);
            if (c.other_kinds > 0)
                printf("%10llu  (other texts)\n", (unsigned long long)c.other_kinds);
        }
    }
    if (rc == EXIT_OK && c.failed > 0)
        rc = EXIT_RECORD_ERR;
    if (fflush(stdout) != 0 || ferror(stdout))
        rc = cli_fail(EXIT_DATA_ERR, "error writing standard output");
out:
    free(c.msg);
    free(c.refs);
    featc_dynamic_free(c.d);
    return rc;
}
