/* Failures grouped by their text, for the commands that report a summary
 * of what went wrong (featc check --data, featc stats). */
#ifndef FEATC_CLI_KINDS_H
#define FEATC_CLI_KINDS_H

#include <stddef.h>
#include <stdint.h>

#include <featc/fc_base.h>

/* Failures grouped by their text: counts, and where each text was first
 * seen (file index, record, offset).  Texts that differ only in the byte
 * they name ("... (at byte 41)", "(at byte 131)") are one kind: its text
 * says "at byte N", and the first distinct numbers are kept. */
#define CLI_KINDS_KEPT 16
#define CLI_KINDS_AT 4
typedef struct cli_error_kind {
    char text[FC_ERROR_MSG_SIZE];
    uint64_t count;
    size_t file;
    uint64_t index, offset;
    uint64_t at[CLI_KINDS_AT]; /* the first distinct N of "at byte N" */
    size_t n_at;
    int more_at; /* more than CLI_KINDS_AT distinct ones */
} cli_error_kind;
typedef struct cli_kinds {
    cli_error_kind kind[CLI_KINDS_KEPT];
    size_t n;
    uint64_t other; /* failures of texts past CLI_KINDS_KEPT */
} cli_kinds;
void cli_kinds_note(cli_kinds *k, const char *text, size_t file, uint64_t index,
                    uint64_t offset);
/* Adds from (read after into: its first places come later). */
void cli_kinds_merge(cli_kinds *into, const cli_kinds *from);
/* "; N = 41, 131, 16, 45, ..." (the bytes e's texts named), or "" */
const char *cli_kind_at(const cli_error_kind *e, char *buf, size_t size);
/* By count, most frequent first (then by text). */
void cli_kinds_sort(cli_kinds *k);

#endif /* FEATC_CLI_KINDS_H */
