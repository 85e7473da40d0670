/* A spec compiled at run time (base/spec.h): the compiler's in-memory
 * descriptors (featc_dynamic.h) and the runtime's general parse path. */
#include "base/spec.h"

#include <stdlib.h>
#include <string.h>

#include <featc/featc_dynamic.h>

#include "base/cli.h"

int cli_spec_open(cli_spec *s, const char *path, const char *message)
{
    size_t len = 0;
    char *src = cli_read_file(path, &len);
    int rc;
    memset(s, 0, sizeof *s);
    if (src == NULL)
        return EXIT_DATA_ERR;
    rc = cli_spec_open_text(s, path, src, len, message);
    free(src);
    return rc;
}

int cli_spec_open_text(cli_spec *s, const char *name, const char *src, size_t len,
                       const char *message)
{
    featc_options fo = FEATC_OPTIONS_INIT;
    int errors;
    memset(s, 0, sizeof *s);
    fo.spec_name = name;
    fo.diag = cli_print_diagnostic;
    errors = featc_dynamic_open(src, len, &fo, message, &s->d);
    if (errors != 0)
        return EXIT_RECORD_ERR;
    s->md = featc_dynamic_example(s->d);
    s->sd = featc_dynamic_sequence(s->d);
    s->size = featc_dynamic_size(s->d);
    s->nrefs = featc_dynamic_refs(s->d);
    return EXIT_OK;
}

void cli_spec_close(cli_spec *s)
{
    featc_dynamic_free(s->d);
    memset(s, 0, sizeof *s);
}

int cli_spec_parse(const cli_spec *s, void *msg, fc_feature_ref *refs, const fc_record *rec,
                   fc_error *err)
{
    if (s->md != NULL)
        return fc_ex_parse_desc(s->md, msg, rec->data, rec->length, featc_dynamic_lookup, s->d,
                                refs, err);
    return fc_seq_parse(s->sd, msg, rec->data, rec->length, refs, err);
}
