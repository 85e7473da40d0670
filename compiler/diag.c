/* Memory pool, text buffer and GNU-style diagnostics for the spec compiler. */
#include "spec.h"

#include <stdarg.h>
#include <stdio.h>
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

void fcc_pool_init(pool *p)
{
    p->head = NULL;
    p->failed = 0;
}

void fcc_pool_free(pool *p)
{
    struct pool_block *b = p->head;
    while (b != NULL) {
        struct pool_block *next = b->next;
        free(b);
        b = next;
    }
    p->head = NULL;
}

void *fcc_pool_alloc(pool *p, size_t n)
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

char *fcc_pool_strndup(pool *p, const char *s, size_t n)
{
    char *r = (char *)fcc_pool_alloc(p, n + 1);
    if (r != NULL && n > 0)
        memcpy(r, s, n);
    return r;
}

/* ------------------------------------------------------------ diagnostics */

void fcc_diag_init(diag *d, featc_diag_fn fn, void *ctx, const char *path, const char *src,
                   size_t len)
{
    d->fn = fn;
    d->ctx = ctx;
    d->path = path;
    d->src = src;
    d->src_len = len;
    d->errors = 0;
    d->stopped = 0;
    d->tf = 0;
    d->warnings = 0;
    d->oom_told = 0;
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

size_t fcc_utf8_at(const unsigned char *p, size_t n, unsigned long *cp)
{
    size_t len, k;
    unsigned long v;
    if (p[0] < 0x80) {
        *cp = p[0];
        return 1;
    }
    len = p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : p[0] >= 0xe0 && p[0] <= 0xef ? 3
          : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    if (len == 0 || len > n)
        return 0;
    v = p[0] & (0x7fu >> len);
    for (k = 1; k < len; k++) {
        if ((p[k] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (p[k] & 0x3fu);
    }
    if ((len == 3 && v < 0x800) || (len == 4 && (v < 0x10000 || v > 0x10ffff)) ||
        (v >= 0xd800 && v <= 0xdfff))
        return 0; /* over-long, a surrogate, past U+10FFFF */
    *cp = v;
    return len;
}

/* The longest line quoted whole; a longer one is shown as the QUOTE_SIDE
 * bytes either side of the column, between "...". */
#define QUOTE_WIDTH 160
#define QUOTE_SIDE 60

/* The source line of loc and a caret under it, into t.  What a terminal
 * would act on is not echoed: a control byte, or a byte that is not part of
 * well-formed UTF-8, shows as '?'. */
static void quote(const diag *d, spec_loc loc, sbuf *t)
{
    size_t n = 0, i, from = 0, to;
    int col, width;
    const char *text = line_text(d, loc.first_line, &n);
    if (text == NULL)
        return;
    col = loc.first_column < 1 ? 1 : loc.first_column;
    to = n;
    if (n > QUOTE_WIDTH) {
        size_t c = (size_t)col - 1 < n ? (size_t)col - 1 : n;
        from = c > QUOTE_SIDE ? c - QUOTE_SIDE : 0;
        to = c + QUOTE_SIDE < n ? c + QUOTE_SIDE : n;
        while (from > 0 && ((unsigned char)text[from] & 0xc0) == 0x80)
            from--; /* not inside a character */
    }
    fcc_sb_put(t, from > 0 ? "...": " ", from > 0 ? 3 : 1);
    for (i = from; i < to;) {
        unsigned char b = (unsigned char)text[i];
        unsigned long cp;
        size_t k = fcc_utf8_at((const unsigned char *)text + i, n - i, &cp);
        if (b == '\t')
            fcc_sb_put(t, " ", 1);
        else if (b < 0x20 || b == 0x7f || k == 0)
            fcc_sb_put(t, "?", 1);
        else {
            fcc_sb_put(t, text + i, k);
            i += k;
            continue;
        }
        i++;
    }
    if (to < n)
        fcc_sb_put(t, "...", 3);
    fcc_sb_put(t, "\n", 1);
    width = (loc.last_line == loc.first_line && loc.last_column >= col)
                ? loc.last_column - col + 1
                : (int)n - col + 1;
    if (from > 0)
        col = col - (int)from + 2; /* past the "..." that stands for what is left out */
    if (width > (int)(to - from) - col + 2)
        width = (int)(to - from) - col + 2; /* not past what is shown */
    if (width < 1)
        width = 1;
    fcc_sb_put(t, " ", 1);
    for (i = 1; i < (size_t)col; i++)
        fcc_sb_put(t, " ", 1);
    fcc_sb_put(t, "^", 1);
    while (--width > 0)
        fcc_sb_put(t, "~", 1);
    fcc_sb_put(t, "\n", 1);
}

/* Formats one diagnostic and hands it to the callback.  loc NULL: no place;
 * the text is then "PATH: MESSAGE", or the message alone when !named.  A
 * located one quotes its source line with a caret when quoted. */
static void deliver(diag *d, featc_severity sev, const spec_loc *loc, int named, int quoted,
                    const char *fmt, va_list ap)
{
    static const char *const kind[] = {"error", "note", "", "warning"};
    sbuf msg = {NULL, 0, 0, 0}, text = {NULL, 0, 0, 0};
    featc_diagnostic fd;
    if (d->fn == NULL)
        return;
    fcc_sb_vprintf(&msg, fmt, ap);
    if (loc != NULL) {
        fcc_sb_printf(&text, "%s:%d:%d: %s: %s\n", d->path, loc->first_line, loc->first_column,
                      kind[sev], msg.s != NULL ? msg.s : "");
        if (quoted)
            quote(d, *loc, &text);
    } else {
        fcc_sb_printf(&text, "%s%s%s\n", named ? d->path : "", named ? ": " : "",
                      msg.s != NULL ? msg.s : "");
    }
    if ((msg.failed || text.failed) && !d->oom_told) {
        /* no memory to format it: what the user must still be told, from
         * the stack, once */
        static const char oom[] = "out of memory (a diagnostic could not be formatted)";
        char line[512];
        memset(&fd, 0, sizeof fd);
        fd.severity = FEATC_ERROR;
        fd.path = d->path;
        fd.message = oom;
        snprintf(line, sizeof line, "%s: error: %s\n", d->path, oom);
        fd.text = line;
        fd.text_len = strlen(line);
        d->oom_told = 1;
        d->fn(d->ctx, &fd);
    } else if (!msg.failed && !text.failed) {
        memset(&fd, 0, sizeof fd);
        fd.severity = sev;
        fd.path = d->path;
        if (loc != NULL) {
            fd.line = loc->first_line;
            fd.column = loc->first_column;
            fd.end_line = loc->last_line;
            fd.end_column = loc->last_column;
        }
        fd.message = msg.s;
        fd.text = text.s;
        fd.text_len = text.n;
        d->fn(d->ctx, &fd);
    }
    free(msg.s);
    free(text.s);
}

static void summary(diag *d, int named, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    deliver(d, FEATC_SUMMARY, NULL, named, 0, fmt, ap);
    va_end(ap);
}

void fcc_diag_error(diag *d, spec_loc loc, const char *fmt, ...)
{
    va_list ap;
    if (d->stopped) {
        d->stopped = 2; /* notes that belong to this error are dropped too */
        return;
    }
    d->errors++;
    va_start(ap, fmt);
    deliver(d, FEATC_ERROR, &loc, 1, 1, fmt, ap);
    va_end(ap);
    if (d->errors >= DIAG_MAX_ERRORS) {
        d->stopped = 1;
        summary(d, 1, "too many errors, stopping");
    }
}

/* A note at loc without the source line and caret (the error's, just
 * above, show them). */
static void note_unquoted(diag *d, spec_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    deliver(d, FEATC_NOTE, &loc, 1, 0, fmt, ap);
    va_end(ap);
}

void fcc_diag_note(diag *d, spec_loc loc, const char *fmt, ...)
{
    va_list ap;
    if (d->stopped == 2)
        return;
    va_start(ap, fmt);
    deliver(d, FEATC_NOTE, &loc, 1, 1, fmt, ap);
    va_end(ap);
}

void fcc_diag_tf(diag *d, spec_loc loc, const char *fmt, ...)
{
    sbuf tf = {NULL, 0, 0, 0};
    va_list ap;
    if (d->stopped == 2)
        return;
    va_start(ap, fmt);
    fcc_sb_vprintf(&tf, fmt, ap);
    va_end(ap);
    if (!tf.failed)
        note_unquoted(d, loc, "TensorFlow rejects this with: \"%s\"", tf.s != NULL ? tf.s : "");
    free(tf.s);
}

void fcc_diag_tf_warning(diag *d, spec_loc loc, const char *tf_text, const char *fmt, ...)
{
    va_list ap;
    if (!d->tf || d->stopped)
        return;
    d->warnings++;
    va_start(ap, fmt);
    deliver(d, FEATC_WARNING, &loc, 1, 1, fmt, ap);
    va_end(ap);
    note_unquoted(d, loc, "TensorFlow rejects this with: \"%s\"", tf_text);
}

void fcc_diag_warning(diag *d, spec_loc loc, const char *fmt, ...)
{
    va_list ap;
    if (d->stopped)
        return;
    d->warnings++;
    va_start(ap, fmt);
    deliver(d, FEATC_WARNING, &loc, 1, 1, fmt, ap);
    va_end(ap);
}

void fcc_diag_fail(diag *d, const char *fmt, ...)
{
    va_list ap;
    d->errors++;
    va_start(ap, fmt);
    deliver(d, FEATC_ERROR, NULL, 1, 0, fmt, ap);
    va_end(ap);
}

void fcc_diag_summary(diag *d)
{
    if (d->errors > 0 && d->warnings > 0)
        summary(d, 0, "%d warning%s and %d error%s generated.", d->warnings,
                d->warnings == 1 ? "" : "s", d->errors, d->errors == 1 ? "" : "s");
    else if (d->errors > 0)
        summary(d, 0, "%d error%s generated.", d->errors, d->errors == 1 ? "" : "s");
    else if (d->warnings > 0)
        summary(d, 0, "%d warning%s generated.", d->warnings, d->warnings == 1 ? "" : "s");
}

/* ------------------------------------------------------------ text buffer */

void fcc_sb_put(sbuf *b, const char *s, size_t n)
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

void fcc_sb_quoted(sbuf *b, const char *s, size_t n, int octal)
{
    size_t i;
    fcc_sb_str(b, "\"");
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fcc_sb_printf(b, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            fcc_sb_put(b, (const char *)&c, 1);
        else
            fcc_sb_printf(b, octal ? "\\%03o" : "\\x%02x", c);
    }
    fcc_sb_str(b, "\"");
}

void fcc_sb_str(sbuf *b, const char *s)
{
    fcc_sb_put(b, s, strlen(s));
}

void fcc_sb_vprintf(sbuf *b, const char *fmt, va_list ap)
{
    char small[512];
    va_list again;
    int n;
    va_copy(again, ap);
    n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        b->failed = 1;
    } else if ((size_t)n < sizeof small) {
        fcc_sb_put(b, small, (size_t)n);
    } else {
        char *big = (char *)malloc((size_t)n + 1);
        if (big == NULL) {
            b->failed = 1;
        } else {
            vsnprintf(big, (size_t)n + 1, fmt, again);
            fcc_sb_put(b, big, (size_t)n);
            free(big);
        }
    }
    va_end(again);
}

void fcc_sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fcc_sb_vprintf(b, fmt, ap);
    va_end(ap);
}
