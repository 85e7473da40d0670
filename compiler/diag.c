/* Memory pool, text buffer and GNU-style diagnostics for the spec compiler. */
#include "spec.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ pool */

struct pool_block {
    struct pool_block *next;
    size_t size, used;
    /* data follows, aligned */
};

#define POOL_ALIGN 16u
#define POOL_HDR (((sizeof(struct pool_block) + POOL_ALIGN - 1) / POOL_ALIGN) * POOL_ALIGN)
#define POOL_CHUNK ((size_t)64 * 1024)

void pool_init(pool *p)
{
    p->head = NULL;
    p->failed = 0;
}

void pool_free(pool *p)
{
    struct pool_block *b = p->head;
    while (b != NULL) {
        struct pool_block *next = b->next;
        free(b);
        b = next;
    }
    p->head = NULL;
}

void *pool_alloc(pool *p, size_t n)
{
    struct pool_block *b = p->head;
    unsigned char *mem;
    n = (n + POOL_ALIGN - 1) / POOL_ALIGN * POOL_ALIGN;
    if (n == 0)
        n = POOL_ALIGN;
    if (b == NULL || b->size - b->used < n) {
        size_t size = n > POOL_CHUNK ? n : POOL_CHUNK;
        if (size > SIZE_MAX - POOL_HDR) {
            p->failed = 1;
            return NULL;
        }
        b = (struct pool_block *)malloc(POOL_HDR + size);
        if (b == NULL) {
            p->failed = 1;
            return NULL;
        }
        b->size = size;
        b->used = 0;
        b->next = p->head;
        p->head = b;
    }
    mem = (unsigned char *)b + POOL_HDR + b->used;
    b->used += n;
    memset(mem, 0, n);
    return mem;
}

char *pool_strndup(pool *p, const char *s, size_t n)
{
    char *r = (char *)pool_alloc(p, n + 1);
    if (r != NULL && n > 0)
        memcpy(r, s, n);
    return r;
}

/* ------------------------------------------------------------ diagnostics */

void diag_init(diag *d, FILE *out, const char *path, const char *src, size_t len)
{
    d->out = out;
    d->path = path;
    d->src = src;
    d->src_len = len;
    d->errors = 0;
    d->stopped = 0;
}

/* The text of 1-based line `line`, without its newline. */
static const char *line_text(const diag *d, int line, size_t *n)
{
    const char *p = d->src, *end = d->src + d->src_len;
    int l = 1;
    while (p < end && l < line) {
        const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            return NULL;
        p = nl + 1;
        l++;
    }
    if (l != line || p > end)
        return NULL;
    {
        const char *nl = (const char *)memchr(p, '\n', (size_t)(end - p));
        *n = (size_t)((nl != NULL ? nl : end) - p);
        if (*n > 0 && p[*n - 1] == '\r')
            (*n)--;
    }
    return p;
}

static void show(diag *d, const char *kind, spec_loc loc, const char *fmt, va_list ap)
{
    const char *text;
    size_t n = 0, i;
    int col, width;
    if (d->out == NULL)
        return;
    fprintf(d->out, "%s:%d:%d: %s: ", d->path, loc.first_line, loc.first_column, kind);
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
    text = line_text(d, loc.first_line, &n);
    if (text == NULL)
        return;
    fputc(' ', d->out);
    for (i = 0; i < n; i++)
        fputc(text[i] == '\t' ? ' ' : text[i], d->out);
    fputc('\n', d->out);
    col = loc.first_column < 1 ? 1 : loc.first_column;
    width = (loc.last_line == loc.first_line && loc.last_column >= col)
                ? loc.last_column - col + 1
                : (int)n - col + 1;
    if (width < 1)
        width = 1;
    fputc(' ', d->out);
    for (i = 1; i < (size_t)col; i++)
        fputc(' ', d->out);
    fputc('^', d->out);
    while (--width > 0)
        fputc('~', d->out);
    fputc('\n', d->out);
}

void diag_error(diag *d, spec_loc loc, const char *fmt, ...)
{
    va_list ap;
    if (d->stopped) {
        d->stopped = 2; /* notes that belong to this error are dropped too */
        return;
    }
    d->errors++;
    va_start(ap, fmt);
    show(d, "error", loc, fmt, ap);
    va_end(ap);
    if (d->errors >= DIAG_MAX_ERRORS) {
        d->stopped = 1;
        if (d->out != NULL)
            fprintf(d->out, "%s: too many errors, stopping\n", d->path);
    }
}

void diag_note(diag *d, spec_loc loc, const char *fmt, ...)
{
    va_list ap;
    if (d->stopped == 2)
        return;
    va_start(ap, fmt);
    show(d, "note", loc, fmt, ap);
    va_end(ap);
}

void diag_summary(diag *d)
{
    if (d->out != NULL && d->errors > 0)
        fprintf(d->out, "%d error%s generated.\n", d->errors, d->errors == 1 ? "" : "s");
}

/* ------------------------------------------------------------ text buffer */

void sb_put(sbuf *b, const char *s, size_t n)
{
    if (b->failed)
        return;
    if (b->cap - b->n < n + 1) {
        size_t cap = b->cap ? b->cap : 4096;
        char *ns;
        while (cap - b->n < n + 1)
            cap *= 2;
        ns = (char *)realloc(b->s, cap);
        if (ns == NULL) {
            b->failed = 1;
            return;
        }
        b->s = ns;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, n);
    b->n += n;
    b->s[b->n] = '\0';
}

void sb_str(sbuf *b, const char *s)
{
    sb_put(b, s, strlen(s));
}

void sb_printf(sbuf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        sb_put(b, small, (size_t)n);
        return;
    }
    {
        char *big = (char *)malloc((size_t)n + 1);
        if (big == NULL) {
            b->failed = 1;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        sb_put(b, big, (size_t)n);
        free(big);
    }
}
