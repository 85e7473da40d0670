/* Failures grouped by their text (base/kinds.h). */
#include "base/kinds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void tools_kinds_note(tools_kinds *k, const char *text, size_t file, uint64_t index,
                      uint64_t offset)
{
    size_t i;
    for (i = 0; i < k->n; i++)
        if (strcmp(k->kind[i].text, text) == 0) {
            k->kind[i].count++;
            return;
        }
    if (k->n == TOOLS_KINDS_KEPT) {
        k->other++;
        return;
    }
    snprintf(k->kind[k->n].text, sizeof k->kind[k->n].text, "%s", text);
    k->kind[k->n].count = 1;
    k->kind[k->n].file = file;
    k->kind[k->n].index = index;
    k->kind[k->n].offset = offset;
    k->n++;
}

void tools_kinds_merge(tools_kinds *into, const tools_kinds *from)
{
    size_t i, j;
    for (i = 0; i < from->n; i++) {
        for (j = 0; j < into->n; j++)
            if (strcmp(into->kind[j].text, from->kind[i].text) == 0)
                break;
        if (j < into->n)
            into->kind[j].count += from->kind[i].count;
        else if (into->n < TOOLS_KINDS_KEPT)
            into->kind[into->n++] = from->kind[i];
        else
            into->other += from->kind[i].count;
    }
    into->other += from->other;
}

static int by_count(const void *a, const void *b)
{
    const tools_error_kind *x = (const tools_error_kind *)a, *y = (const tools_error_kind *)b;
    return x->count != y->count ? (x->count > y->count ? -1 : 1) : strcmp(x->text, y->text);
}

void tools_kinds_sort(tools_kinds *k)
{
    if (k->n > 1)
        qsort(k->kind, k->n, sizeof *k->kind, by_count);
}
