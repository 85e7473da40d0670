/* A spec compiled at run time, to read records through one of its
 * messages (featc check --data, featc stats --spec). */
#ifndef FEATC_CLI_SPEC_H
#define FEATC_CLI_SPEC_H

#include <featc/fc_example.h>
#include <featc/fc_sequence.h>
#include <featc/fc_record.h>

struct featc_dynamic;

typedef struct cli_spec {
    struct featc_dynamic *d;
    const fc_message_desc *md; /* an example, or */
    const fc_seq_desc *sd;     /* a sequence_example */
    size_t size, nrefs;        /* bytes of its struct; parse scratch entries */
} cli_spec;
/* Reads and compiles the spec at path (diagnostics printed): EXIT_OK, or
 * the exit status (1 errors in the spec, 2 unreadable). */
int cli_spec_open(cli_spec *s, const char *path, const char *message);
/* The same for spec text in memory (name: for its diagnostics). */
int cli_spec_open_text(cli_spec *s, const char *name, const char *src, size_t len,
                       const char *message);
void cli_spec_close(cli_spec *s);
/* One record through the spec: FC_OK or FC_ERR_PARSE with err.  msg (size
 * bytes) and refs (nrefs) are the caller's scratch. */
int cli_spec_parse(const cli_spec *s, void *msg, fc_feature_ref *refs, const fc_record *rec,
                   fc_error *err);

#endif /* FEATC_CLI_SPEC_H */
