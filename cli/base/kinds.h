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
#define TOOLS_KINDS_KEPT 16
#define TOOLS_KINDS_AT 4
typedef struct tools_error_kind {
    char text[FC_ERROR_MSG_SIZE];
    uint64_t count;
    size_t file;
    uint64_t index, offset;
    uint64_t at[TOOLS_KINDS_AT]; /* the first distinct N of "at byte N" */
    size_t n_at;
    int more_at; /* more than TOOLS_KINDS_AT distinct ones */
} tools_error_kind;
typedef struct tools_kinds {
    tools_error_kind kind[TOOLS_KINDS_KEPT];
    size_t n;
    uint64_t other; /* failures of texts past TOOLS_KINDS_KEPT */
} tools_kinds;
void tools_kinds_note(tools_kinds *k, const char *text, size_t file, uint64_t index,
                      uint64_t offset);
/* Adds from (read after into: its first places come later). */
void tools_kinds_merge(tools_kinds *into, const tools_kinds *from);
/* "; N = 41, 131, 16, 45, ..." (the bytes e's texts named), or "" */
const char *tools_kind_at(const tools_error_kind *e, char *buf, size_t size);
/* By count, most frequent first (then by text). */
void tools_kinds_sort(tools_kinds *k);

#endif /* FEATC_CLI_KINDS_H */
