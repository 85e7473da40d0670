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
#include "commands.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

#include <featc/fc_json.h>
#include <featc/featc_dynamic.h>

#include "base/kinds.h"
#include "base/progress.h"
#include "base/spec.h"

/* ------------------------------------------------------------ check --data */

typedef struct checker {
    const cli_check_opts *o;
    cli_spec spec;
    void *msg;
    fc_feature_ref *refs;
    uint64_t records, failed, shown, n;
    cli_kinds kinds;
} checker;

/* One record: printed (--json) or judged. */
static void check_record(checker *c, const fc_record *rec, const char *path, size_t file)
{
    fc_error err;
    int ok;
    fc_error_clear(&err);
    /* as the generated driver: one struct, not cleared between records */
    ok = cli_spec_parse(&c->spec, c->msg, c->refs, rec, &err) == FC_OK;
    c->records++;
    if (c->o->json) {
        /* the dump contract, as fc_driver_main prints it */
        if (ok) {
            printf("{\"record\":%llu,", (unsigned long long)c->n);
            if (c->spec.md != NULL) {
                fputs("\"features\":", stdout);
                fc_json_features(stdout, c->spec.md, c->msg);
            } else {
                fputs("\"context\":", stdout);
                fc_json_context(stdout, c->spec.sd, c->msg);
                fputs(",\"feature_lists\":", stdout);
                fc_json_feature_lists(stdout, c->spec.sd, c->msg);
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
    cli_kinds_note(&c->kinds, err.message, file, rec->index, rec->offset);
    if (!c->o->json && c->shown < c->o->max_errors) {
        c->shown++;
        printf("%s: record %llu (offset %llu): %s\n", path, (unsigned long long)rec->index,
               (unsigned long long)rec->offset, err.message);
    }
}

int cli_check_data(const char *spec_path, char **files, int nfiles, const cli_check_opts *o)
{
    checker c;
    progress pg;
    int rc, k;
    memset(&c, 0, sizeof c);
    c.o = o;
    if ((rc = cli_spec_open(&c.spec, spec_path, o->message)) != EXIT_OK)
        return rc;
    c.msg = calloc(1, c.spec.size);
    c.refs = (fc_feature_ref *)calloc(c.spec.nrefs, sizeof *c.refs);
    if (c.msg == NULL || c.refs == NULL) {
        rc = cli_fail(EXIT_DATA_ERR, "out of memory: the message of %s needs %zu bytes",
                      spec_path, c.spec.size);
        goto out;
    }
    progress_start(&pg, "check", files, nfiles, o->progress, o->json);
    for (k = 0; k < nfiles; k++) {
        const char *path = files[k];
        fc_input in;
        fc_record rec;
        uint64_t before = c.records, failed_before = c.failed;
        int s = fc_input_open(&in, path, &o->read), opened = s == FC_OK;
        while (s == FC_OK && (s = fc_input_next(&in, &rec)) == FC_OK) {
            progress_record(&pg, fc_reader_raw_offset(&in.reader));
            if (!o->json && c.shown < o->max_errors)
                progress_clear(&pg);
            check_record(&c, &rec, path, (size_t)k);
        }
        progress_clear(&pg);
        progress_file_done(&pg, fc_reader_raw_offset(&in.reader));
        if (s != FC_END) {
            fflush(stdout);
            fprintf(stderr, "featc: %s: %s\n", path, in.err.message);
            rc = EXIT_DATA_ERR;
        }
        if (!o->json && !opened)
            printf("%s: not read (it cannot be opened)\n", path);
        else if (!o->json)
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
        if (c.kinds.n > 0) {
            cli_kinds_sort(&c.kinds);
            printf("errors by text:\n");
            for (i = 0; i < c.kinds.n; i++) {
                char at[128];
                printf("%10llu  %s (first: %s record %llu%s)\n",
                       (unsigned long long)c.kinds.kind[i].count, c.kinds.kind[i].text,
                       files[c.kinds.kind[i].file], (unsigned long long)c.kinds.kind[i].index,
                       cli_kind_at(&c.kinds.kind[i], at, sizeof at));
            }
            if (c.kinds.other > 0)
                printf("%10llu  (other texts)\n", (unsigned long long)c.kinds.other);
        }
    }
    if (rc == EXIT_OK && c.failed > 0)
        rc = EXIT_RECORD_ERR;
    if (fflush(stdout) != 0 || ferror(stdout))
        rc = cli_fail(EXIT_DATA_ERR, "error writing standard output");
out:
    free(c.msg);
    free(c.refs);
    cli_spec_close(&c.spec);
    return rc;
}
