/* Failures grouped by their text (base/kinds.h). */
#include "base/kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* text into out with each "at byte DIGITS" as "at byte N"; the first
 * DIGITS in *at (else *has is 0) */
static void at_byte_n(char *out, size_t size, const char *text, uint64_t *at, int *has)
{
    static const char word[] = "at byte ";
    size_t n = 0;
    *has = 0;
    while (*text != '\0' && n + 1 < size) {
        if (strncmp(text, word, sizeof word - 1) == 0 && text[sizeof word - 1] >= '0' &&
            text[sizeof word - 1] <= '9') {
            uint64_t v = 0;
            text += sizeof word - 1;
            while (*text >= '0' && *text <= '9')
                v = v * 10 + (uint64_t)(*text++ - '0');
            if (!*has) {
                *at = v;
                *has = 1;
            }
            n += (size_t)snprintf(out + n, size - n, "%sN", word);
            if (n >= size)
                n = size - 1;
            continue;
        }
        out[n++] = *text++;
    }
    out[n] = '\0';
}

static void add_at(cli_error_kind *e, uint64_t v)
{
    size_t i;
    for (i = 0; i < e->n_at; i++)
        if (e->at[i] == v)
            return;
    if (e->n_at < CLI_KINDS_AT)
        e->at[e->n_at++] = v;
    else
        e->more_at = 1;
}

void cli_kinds_note(cli_kinds *k, const char *text, size_t file, uint64_t index,
                    uint64_t offset)
{
    char norm[FC_ERROR_MSG_SIZE];
    uint64_t at = 0;
    int has;
    size_t i;
    at_byte_n(norm, sizeof norm, text, &at, &has);
    for (i = 0; i < k->n; i++)
        if (strcmp(k->kind[i].text, norm) == 0) {
            k->kind[i].count++;
            if (has)
                add_at(&k->kind[i], at);
            return;
        }
    if (k->n == CLI_KINDS_KEPT) {
        k->other++;
        return;
    }
    memset(&k->kind[k->n], 0, sizeof k->kind[k->n]);
    memcpy(k->kind[k->n].text, norm, sizeof norm);
    k->kind[k->n].count = 1;
    k->kind[k->n].file = file;
    k->kind[k->n].index = index;
    k->kind[k->n].offset = offset;
    if (has)
        add_at(&k->kind[k->n], at);
    k->n++;
}

void cli_kinds_merge(cli_kinds *into, const cli_kinds *from)
{
    size_t i, j, a;
    for (i = 0; i < from->n; i++) {
        for (j = 0; j < into->n; j++)
            if (strcmp(into->kind[j].text, from->kind[i].text) == 0)
                break;
        if (j < into->n) {
            into->kind[j].count += from->kind[i].count;
            for (a = 0; a < from->kind[i].n_at; a++)
                add_at(&into->kind[j], from->kind[i].at[a]);
            into->kind[j].more_at |= from->kind[i].more_at;
        } else if (into->n < CLI_KINDS_KEPT)
            into->kind[into->n++] = from->kind[i];
        else
            into->other += from->kind[i].count;
    }
    into->other += from->other;
}

const char *cli_kind_at(const cli_error_kind *e, char *buf, size_t size)
{
    size_t i, n = 0;
    buf[0] = '\0';
    for (i = 0; i < e->n_at && n < size; i++)
        n += (size_t)snprintf(buf + n, size - n, "%s%llu", i == 0 ? "; N = " : ", ",
                              (unsigned long long)e->at[i]);
    if (e->more_at && n < size)
        snprintf(buf + n, size - n, ", ...");
    return buf;
}

static int by_count(const void *a, const void *b)
{
    const cli_error_kind *x = (const cli_error_kind *)a, *y = (const cli_error_kind *)b;
    return x->count != y->count ? (x->count > y->count ? -1 : 1) : strcmp(x->text, y->text);
}

void cli_kinds_sort(cli_kinds *k)
{
    if (k->n > 1)
        qsort(k->kind, k->n, sizeof *k->kind, by_count);
}
